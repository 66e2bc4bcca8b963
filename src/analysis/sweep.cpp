#include "analysis/sweep.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <tuple>

#include "analysis/log_histogram.hpp"

namespace gputopo::analysis {
namespace {

using detail::LogHistogram;

double median_in_place(std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

// Per-point counts over the pooled histogram's bins, from the bins already assigned to every
// sample: they give the point's exact median and its level fractions without sorting it.
class PointBins {
 public:
  explicit PointBins(std::size_t raw_bins) : count_(raw_bins + 1) {
    for (auto& lane : lanes_) lane.resize(raw_bins + 1);
  }

  // Counts the point's usable samples; returns how many there are.
  std::size_t count(std::span<const std::uint16_t> bins) {
    const std::size_t unusable = count_.size() - 1;
    for (auto& lane : lanes_) std::fill(lane.begin(), lane.end(), 0u);
    // Four interleaved counters: runs of one bin (the usual case) do not serialise on one cell.
    std::size_t i = 0;
    for (; i + 4 <= bins.size(); i += 4) {
      for (std::size_t l = 0; l < 4; ++l) {
        const std::uint16_t b = bins[i + l];
        ++lanes_[l][b == LogHistogram::kUnusable ? unusable : b];
      }
    }
    for (; i < bins.size(); ++i) {
      const std::uint16_t b = bins[i];
      ++lanes_[0][b == LogHistogram::kUnusable ? unusable : b];
    }
    for (std::size_t b = 0; b < count_.size(); ++b) {
      count_[b] = lanes_[0][b] + lanes_[1][b] + lanes_[2][b] + lanes_[3][b];
    }
    return bins.size() - count_[unusable];
  }

  // Exact median of the counted samples: find the bins of the middle ranks, then order only the
  // samples in those bins.
  double median(std::span<const double> samples, std::span<const std::uint16_t> bins,
                std::size_t usable) {
    if (usable == 0) return std::numeric_limits<double>::quiet_NaN();
    const std::size_t lo_rank = (usable - 1) / 2;
    const std::size_t hi_rank = usable / 2;
    std::size_t below = 0, first_bin = 0;
    while (below + count_[first_bin] <= lo_rank) below += count_[first_bin++];
    std::size_t last_bin = first_bin, upto = below + count_[first_bin];
    while (upto <= hi_rank) upto += count_[++last_bin];
    scratch_.resize(samples.size());
    std::size_t kept = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      scratch_[kept] = samples[i];
      kept += (bins[i] >= first_bin && bins[i] <= last_bin) ? 1 : 0;
    }
    const auto begin = scratch_.begin();
    const auto end = begin + static_cast<std::ptrdiff_t>(kept);
    const auto at = [&](std::size_t rank) {
      const auto it = begin + static_cast<std::ptrdiff_t>(rank - below);
      std::nth_element(begin, it, end);
      return *it;
    };
    const double lo = at(lo_rank);
    return hi_rank == lo_rank ? lo : 0.5 * (lo + at(hi_rank));
  }

  // Loads of the counted point in each level.
  void level_counts(const std::vector<std::uint8_t>& level_of_bin, std::vector<double>& f) const {
    std::fill(f.begin(), f.end(), 0.0);
    for (std::size_t b = 0; b + 1 < count_.size(); ++b) {
      if (count_[b] != 0) f[level_of_bin[b]] += count_[b];
    }
  }

 private:
  std::array<std::vector<std::uint32_t>, 4> lanes_;
  std::vector<std::uint32_t> count_;  // last entry: unusable samples
  std::vector<double> scratch_;
};

// 10 % trimmed mean and the standard error of that mean, on a scratch copy.
std::pair<double, double> trimmed_mean_and_se(std::vector<double>& v) {
  const std::size_t cut = v.size() / 10;
  const auto first = v.begin() + static_cast<std::ptrdiff_t>(cut);
  const auto last = v.end() - static_cast<std::ptrdiff_t>(cut);
  std::nth_element(v.begin(), first, v.end());
  std::nth_element(first, last - 1, v.end());
  const double n = static_cast<double>(last - first);
  const double mean = std::accumulate(first, last, 0.0) / n;
  double ss = 0;
  for (auto it = first; it != last; ++it) ss += (*it - mean) * (*it - mean);
  return {mean, n > 1 ? std::sqrt(ss / (n - 1) / n) : 0.0};
}

// Variance-stabilising transform of a fraction p of loads (Anscombe's arcsine form for counts,
// with the offset taken at the sweep's typical load count n so that the same fraction always maps
// to the same value, whatever a point's own count): its noise is about 1 / (2 sqrt(n)) at any
// fraction, even for the few loads of a rare level, so a 1 % miss fraction above a clean hit
// plateau is as visible as a 1 % change at 50 %, and blends of two pure levels stay on a line.
class Stabilizer {
 public:
  explicit Stabilizer(double n) : offset_(0.375 / n), scale_(1 / (1 + 0.75 / n)) {}
  double operator()(double fraction) const {
    return std::asin(std::sqrt(std::clamp((fraction + offset_) * scale_, 0.0, 1.0)));
  }

 private:
  double offset_, scale_;
};

// Features of one point from its loads per level: the miss fraction (MissFraction), or the
// fraction in each of the feature levels (LevelFractions).
void level_features(const std::vector<double>& f, double usable, const Stabilizer& stabilize,
                    Reduction reduction, const std::vector<std::size_t>& feature_levels,
                    double* row) {
  if (reduction == Reduction::MissFraction) {
    row[0] = stabilize((usable - f[0]) / usable);
  } else {
    for (std::size_t d = 0; d < feature_levels.size(); ++d) {
      row[d] = stabilize(f[feature_levels[d]] / usable);
    }
  }
}

void trimmed_means(const std::vector<SweepPoint>& points, ReducedSweep& r) {
  const std::size_t n = points.size();
  r.dims = 1;
  r.features.assign(n, 0.0);
  std::vector<double> se(n), scratch;
  for (std::size_t i = 0; i < n; ++i) {
    scratch.assign(points[i].samples.begin(), points[i].samples.end());
    if (scratch.empty()) continue;
    std::tie(r.features[i], se[i]) = trimmed_mean_and_se(scratch);
    r.score[i] = r.features[i];
  }
  r.sampling_sd = {n > 0 ? median_in_place(se) : 0.0};
}

void geometric_mapping(const std::vector<SweepPoint>& points, ReducedSweep& r) {
  double global_min = std::numeric_limits<double>::infinity();
  for (const SweepPoint& p : points) {
    for (double v : p.samples) global_min = std::min(global_min, v);
  }
  r.dims = 1;
  r.features.assign(points.size(), 0.0);
  for (std::size_t i = 0; i < points.size(); ++i) {
    double ss = 0;
    for (double v : points[i].samples) ss += (v - global_min) * (v - global_min);
    r.features[i] = r.score[i] = std::sqrt(ss);
  }
  r.sampling_sd = {0.0};
}

}  // namespace

ReducedSweep reduce(const std::vector<SweepPoint>& points, Reduction reduction) {
  ReducedSweep r;
  r.reduction = reduction;
  const std::size_t n = points.size();
  r.x.resize(n);
  r.score.assign(n, 0.0);
  r.median.resize(n);
  r.n.resize(n);
  std::vector<std::span<const double>> spans;
  for (const SweepPoint& p : points) spans.emplace_back(p.samples);
  const LogHistogram h =
      detail::build_log_histogram(std::span<const std::span<const double>>(spans), 1024);

  const bool by_levels =
      reduction == Reduction::LevelFractions || reduction == Reduction::MissFraction;
  const double mean_n = std::max(1.0, h.total / static_cast<double>(std::max<std::size_t>(n, 1)));
  const Stabilizer stabilize(mean_n);
  std::vector<std::uint8_t> level_of_bin;
  // Levels above the lowest that become features. A level averaging under one load per point
  // (a handful of stray loads in the whole sweep) cannot shape a per-point profile: its fraction
  // is counting noise. It still counts as a miss in MissFraction and in the score.
  std::vector<std::size_t> feature_levels;
  if (by_levels) {
    r.levels = detail::cluster_log_histogram(h, {}, level_of_bin);
    for (std::size_t c = 1; c < r.levels.k(); ++c) {
      if (r.levels.levels[c].weight * mean_n >= 1) feature_levels.push_back(c);
    }
    r.dims =
        reduction == Reduction::MissFraction ? 1 : std::max<std::size_t>(feature_levels.size(), 1);
    r.features.assign(n * r.dims, 0.0);
    if (reduction == Reduction::LevelFractions) r.feature_levels = feature_levels;
  }
  std::vector<double> f(std::max<std::size_t>(r.levels.k(), 1));
  PointBins counter(h.raw_bins);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < n; ++i) {
    r.x[i] = points[i].x;
    r.n[i] = points[i].samples.size();
    const std::span<const std::uint16_t> bins(h.sample_bin.data() + offset, r.n[i]);
    offset += r.n[i];
    const std::size_t usable = counter.count(bins);
    r.median[i] = counter.median(points[i].samples, bins, usable);
    if (!by_levels) continue;
    double* row = r.features.data() + i * r.dims;
    if (usable == 0) {  // no information: repeat the previous point so that it adds no change
      if (i > 0) {
        std::copy(row - r.dims, row, row);
        r.score[i] = r.score[i - 1];
      }
      continue;
    }
    counter.level_counts(level_of_bin, f);
    double score = 0;
    for (std::size_t c = 0; c < r.levels.k(); ++c) score += f[c] * r.levels.levels[c].center;
    const double u = static_cast<double>(usable);
    r.score[i] = score / u;
    level_features(f, u, stabilize, reduction, feature_levels, row);
  }
  if (by_levels) {
    // In these units a fraction of n loads has standard error 1 / (2 sqrt(n + 1/2)).
    r.sampling_sd.assign(r.dims, 0.5 / std::sqrt(mean_n + 0.5));
  } else if (reduction == Reduction::TrimmedMean) {
    trimmed_means(points, r);
  } else {
    geometric_mapping(points, r);
  }
  return r;
}

}  // namespace gputopo::analysis
