#include "analysis/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <tuple>

#include "analysis/log_histogram.hpp"

namespace gputopo::analysis {
namespace {

double median_in_place(std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

// Exact median of the usable samples of one point, using the histogram bins already assigned to
// them: count per bin, find the bins of the middle ranks, and order only the samples in those.
double median_by_bins(std::span<const double> samples, std::span<const std::uint16_t> bins,
                      std::vector<std::uint32_t>& count, std::vector<double>& scratch) {
  std::fill(count.begin(), count.end(), 0u);
  std::size_t usable = 0;
  for (std::uint16_t b : bins) {
    if (b == detail::LogHistogram::kUnusable) continue;
    ++count[b];
    ++usable;
  }
  if (usable == 0) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t lo_rank = (usable - 1) / 2;
  const std::size_t hi_rank = usable / 2;
  std::size_t below = 0, first_bin = 0;
  while (below + count[first_bin] <= lo_rank) below += count[first_bin++];
  std::size_t last_bin = first_bin, upto = below + count[first_bin];
  while (upto <= hi_rank) upto += count[++last_bin];
  scratch.clear();
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (bins[i] >= first_bin && bins[i] <= last_bin) scratch.push_back(samples[i]);
  }
  const auto at = [&](std::size_t rank) {
    const auto it = scratch.begin() + static_cast<std::ptrdiff_t>(rank - below);
    std::nth_element(scratch.begin(), it, scratch.end());
    return *it;
  };
  const double lo = at(lo_rank);
  return hi_rank == lo_rank ? lo : 0.5 * (lo + at(hi_rank));
}

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

// Variance-stabilising transform of k loads out of n (Anscombe's arcsine form): its noise is
// about 1 / (2 sqrt(n)) whatever the fraction, even for the few counts of a rare level, so a 1 %
// miss fraction above a clean hit plateau is as visible as a 1 % change at 50 %, and blends of two
// pure levels stay on a straight line.
double stabilize(double k, double n) {
  return std::asin(std::sqrt(std::clamp((k + 0.375) / (n + 0.75), 0.0, 1.0)));
}

void reduce_levels(const std::vector<SweepPoint>& points, const detail::LogHistogram& h,
                   Reduction reduction, ReducedSweep& r) {
  std::vector<std::uint8_t> level_of_bin;
  r.levels = detail::cluster_log_histogram(h, {}, level_of_bin);
  const std::size_t k = r.levels.k();
  r.dims = reduction == Reduction::MissFraction ? 1 : std::max<std::size_t>(k, 2) - 1;
  r.features.assign(points.size() * r.dims, 0.0);
  double mean_n = 0;
  std::vector<double> f(std::max<std::size_t>(k, 1));
  std::size_t offset = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::fill(f.begin(), f.end(), 0.0);
    double usable = 0;
    for (std::size_t j = 0; j < points[i].samples.size(); ++j) {
      const std::uint16_t b = h.sample_bin[offset + j];
      if (b == detail::LogHistogram::kUnusable) continue;
      f[level_of_bin[b]] += 1;
      usable += 1;
    }
    offset += points[i].samples.size();
    double* row = r.features.data() + i * r.dims;
    if (usable == 0) {  // no information: repeat the previous point so that it adds no change
      if (i > 0) {
        std::copy(row - r.dims, row, row);
        r.score[i] = r.score[i - 1];
      }
      continue;
    }
    double score = 0;
    for (std::size_t c = 0; c < k; ++c) score += f[c] * r.levels.levels[c].center;
    r.score[i] = score / usable;
    if (reduction == Reduction::MissFraction) {
      row[0] = stabilize(usable - f[0], usable);
    } else {
      for (std::size_t c = 1; c < f.size(); ++c) row[c - 1] = stabilize(f[c], usable);
    }
    mean_n += usable;
  }
  const double np = static_cast<double>(std::max<std::size_t>(points.size(), 1));
  mean_n = std::max(1.0, mean_n / np);
  r.sampling_sd.assign(r.dims, 0.5 / std::sqrt(mean_n + 0.5));
}

}  // namespace

ReducedSweep reduce(const std::vector<SweepPoint>& points, Reduction reduction) {
  ReducedSweep r;
  r.reduction = reduction;
  const std::size_t n = points.size();
  r.x.resize(n);
  r.score.resize(n);
  r.median.resize(n);
  r.n.resize(n);
  std::vector<std::span<const double>> spans;
  for (const SweepPoint& p : points) spans.emplace_back(p.samples);
  const detail::LogHistogram h =
      detail::build_log_histogram(std::span<const std::span<const double>>(spans), 1024);
  std::vector<double> scratch;
  std::vector<std::uint32_t> count(h.raw_bins);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < n; ++i) {
    r.x[i] = points[i].x;
    r.n[i] = points[i].samples.size();
    const std::span<const std::uint16_t> bins(h.sample_bin.data() + offset, r.n[i]);
    r.median[i] = median_by_bins(points[i].samples, bins, count, scratch);
    offset += r.n[i];
  }
  switch (reduction) {
    case Reduction::LevelFractions:
    case Reduction::MissFraction:
      reduce_levels(points, h, reduction, r);
      break;
    case Reduction::TrimmedMean: {
      r.dims = 1;
      r.features.resize(n);
      std::vector<double> se(n);
      for (std::size_t i = 0; i < n; ++i) {
        scratch.assign(points[i].samples.begin(), points[i].samples.end());
        if (scratch.empty()) continue;
        std::tie(r.features[i], se[i]) = trimmed_mean_and_se(scratch);
        r.score[i] = r.features[i];
      }
      std::vector<double> sorted_se(se);
      r.sampling_sd = {n > 0 ? median_in_place(sorted_se) : 0.0};
      break;
    }
    case Reduction::Geometric: {
      double global_min = std::numeric_limits<double>::infinity();
      for (const SweepPoint& p : points) {
        for (double v : p.samples) global_min = std::min(global_min, v);
      }
      r.dims = 1;
      r.features.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        double ss = 0;
        for (double v : points[i].samples) ss += (v - global_min) * (v - global_min);
        r.features[i] = r.score[i] = std::sqrt(ss);
      }
      r.sampling_sd = {0.0};
      break;
    }
  }
  return r;
}

}  // namespace gputopo::analysis
