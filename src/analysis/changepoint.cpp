#include "analysis/changepoint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "analysis/distributions.hpp"

namespace gputopo::analysis {
namespace {

using Range = std::pair<std::size_t, std::size_t>;  // points [first, second)

// Robust point-to-point noise of one feature: 1.4826 * median |first difference| / sqrt(2). A few
// real steps among the differences do not move the median.
double difference_noise(const ReducedSweep& r, std::size_t c) {
  if (r.size() < 3) return 0;
  std::vector<double> d(r.size() - 1);
  for (std::size_t i = 0; i + 1 < r.size(); ++i) {
    d[i] = std::abs(r.row(i + 1)[c] - r.row(i)[c]);
  }
  const auto mid = d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2);
  std::nth_element(d.begin(), mid, d.end());
  return 1.482602218505602 * *mid / std::sqrt(2.0);
}

// The features divided by their noise, with prefix sums: cost(a, b) is the Gaussian mean-shift
// cost (sum of squared deviations from the mean) of points [a, b), in units of the noise.
class Model {
 public:
  Model(const ReducedSweep& r, double& noise) : n_(r.size()), d_(std::max<std::size_t>(r.dims, 1)) {
    std::vector<double> sd(d_, 1.0);
    noise = 0;
    for (std::size_t c = 0; c < r.dims; ++c) {
      double mean_abs = 0;
      for (std::size_t i = 0; i < n_; ++i) mean_abs += std::abs(r.row(i)[c]);
      mean_abs /= static_cast<double>(std::max<std::size_t>(n_, 1));
      const double floor = c < r.sampling_sd.size() ? r.sampling_sd[c] : 0.0;
      sd[c] = std::max({difference_noise(r, c), floor, 1e-9 * mean_abs, 1e-300});
      noise = std::max(noise, sd[c]);
    }
    s1_.assign((n_ + 1) * d_, 0.0);
    s2_.assign((n_ + 1) * d_, 0.0);
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t c = 0; c < d_; ++c) {
        const double y = c < r.dims ? r.row(i)[c] / sd[c] : 0.0;
        s1_[(i + 1) * d_ + c] = s1_[i * d_ + c] + y;
        s2_[(i + 1) * d_ + c] = s2_[i * d_ + c] + y * y;
      }
    }
  }

  std::size_t size() const { return n_; }
  std::size_t dims() const { return d_; }

  double cost(std::size_t a, std::size_t b) const {
    if (b <= a + 1) return 0;
    const double len = static_cast<double>(b - a);
    double total = 0;
    for (std::size_t c = 0; c < d_; ++c) {
      const double s = s1_[b * d_ + c] - s1_[a * d_ + c];
      total += (s2_[b * d_ + c] - s2_[a * d_ + c]) - s * s / len;
    }
    return std::max(total, 0.0);
  }

  // Count and per-feature sums over a set of ranges.
  std::pair<double, std::vector<double>> moments(const std::vector<Range>& ranges) const {
    double count = 0;
    std::vector<double> sum(d_, 0.0);
    for (const auto& [a, b] : ranges) {
      count += static_cast<double>(b - a);
      for (std::size_t c = 0; c < d_; ++c) sum[c] += s1_[b * d_ + c] - s1_[a * d_ + c];
    }
    return {count, sum};
  }

 private:
  std::size_t n_, d_;
  std::vector<double> s1_, s2_;
};

// Exact optimal partitioning with PELT pruning: minimises sum of costs + penalty per change.
std::vector<std::size_t> optimal_partition(const Model& m, double penalty) {
  const std::size_t n = m.size();
  std::vector<double> f(n + 1, 0.0);
  std::vector<std::size_t> last(n + 1, 0);
  std::vector<std::size_t> candidates{0};
  f[0] = -penalty;
  for (std::size_t t = 1; t <= n; ++t) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t s : candidates) {
      const double v = f[s] + m.cost(s, t) + penalty;
      if (v < best) {
        best = v;
        last[t] = s;
      }
    }
    f[t] = best;
    std::erase_if(candidates, [&](std::size_t s) { return f[s] + m.cost(s, t) > best; });
    candidates.push_back(t);
  }
  std::vector<std::size_t> starts;
  for (std::size_t t = n; t > 0; t = last[t]) starts.push_back(last[t]);
  std::reverse(starts.begin(), starts.end());
  return starts;  // first point of every segment, starting with 0
}

// A plateau being assembled: the points that belong to it and the excursions it contains.
struct Block {
  std::vector<Range> ranges;
  std::vector<Range> excursions;  // [first, last] inclusive
  std::size_t begin() const { return ranges.front().first; }
  std::size_t end() const { return ranges.back().second; }
};

class Segmenter {
 public:
  Segmenter(const ReducedSweep& r, const SegmentOptions& o)
      : r_(r),
        model_(r, noise_),
        alpha_(std::clamp(o.alpha, 1e-300, 0.5)),
        fold_blends_(o.fold_blends) {
    same_level_ = chi2_isf(alpha_, static_cast<double>(model_.dims()));
  }

  Segmentation run(std::size_t max_changes) {
    Segmentation out;
    out.noise = noise_;
    const std::size_t n = r_.size();
    if (n == 0) return out;
    const double locations = static_cast<double>(std::max<std::size_t>(n - 1, 1));
    double penalty = chi2_isf(alpha_ / locations, static_cast<double>(model_.dims()));
    std::vector<std::size_t> starts = optimal_partition(model_, penalty);
    while (starts.size() > max_changes + 1) {
      penalty *= 2;
      starts = optimal_partition(model_, penalty);
    }
    out.penalty = penalty;
    std::vector<Block> blocks;
    for (std::size_t i = 0; i < starts.size(); ++i) {
      const std::size_t e = i + 1 < starts.size() ? starts[i + 1] : n;
      blocks.push_back({{{starts[i], e}}, {}});
    }
    fold_returns(blocks);
    const std::vector<bool> is_plateau = find_plateaus(blocks);
    std::vector<Block> plateaus;
    std::size_t transition_begin = 0;
    bool in_transition = false;
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      if (!is_plateau[k]) {
        if (!in_transition) transition_begin = blocks[k].begin();
        in_transition = true;
        continue;
      }
      if (!plateaus.empty()) {
        out.changes.push_back(change_between(plateaus.back(), blocks[k],
                                             in_transition ? transition_begin : blocks[k].begin()));
      }
      in_transition = false;
      plateaus.push_back(blocks[k]);
    }
    for (const Block& b : plateaus) {
      out.plateaus.push_back(plateau(b));
      for (const Range& e : b.excursions) out.excursions.push_back(e);
    }
    return out;
  }

 private:
  bool consistent(const Block& a, const Block& b) const {
    const auto [na, sa] = model_.moments(a.ranges);
    const auto [nb, sb] = model_.moments(b.ranges);
    double t = 0;
    for (std::size_t c = 0; c < sa.size(); ++c) {
      const double diff = sa[c] / na - sb[c] / nb;
      t += diff * diff;
    }
    return t / (1 / na + 1 / nb) < same_level_;
  }

  double mean_score(const std::vector<Range>& ranges) const {
    double sum = 0, count = 0;
    for (const auto& [a, b] : ranges) {
      for (std::size_t i = a; i < b; ++i) sum += r_.score[i];
      count += static_cast<double>(b - a);
    }
    return count > 0 ? sum / count : 0.0;
  }

  double median_level(const std::vector<Range>& ranges) const {
    std::vector<double> v;
    for (const auto& [a, b] : ranges)
      v.insert(v.end(), r_.median.begin() + a, r_.median.begin() + b);
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  }

  // A block that comes back to the level of an earlier one absorbs everything in between as an
  // excursion of that earlier plateau, when that is shorter than the plateau.
  void fold_returns(std::vector<Block>& blocks) const {
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t j = 2; j < blocks.size() && !changed; ++j) {
        for (std::size_t i = j - 1; i-- > 0;) {
          // An excursion is shorter than the plateau it left; a longer stay is a level of its
          // own (e.g. strides past the line size that fit, until conflict misses return).
          std::size_t plateau = 0;
          for (const auto& [a, e] : blocks[i].ranges) plateau += e - a;
          if (blocks[j - 1].end() - blocks[i + 1].begin() >= plateau) continue;
          if (!consistent(blocks[i], blocks[j])) continue;
          Block merged = blocks[i];
          merged.excursions.push_back({blocks[i + 1].begin(), blocks[j - 1].end() - 1});
          merged.ranges.insert(merged.ranges.end(), blocks[j].ranges.begin(),
                               blocks[j].ranges.end());
          merged.excursions.insert(merged.excursions.end(), blocks[j].excursions.begin(),
                                   blocks[j].excursions.end());
          blocks[i] = std::move(merged);
          blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                       blocks.begin() + static_cast<std::ptrdiff_t>(j) + 1);
          changed = true;
          break;
        }
      }
    }
  }

  std::vector<double> mean_features(const Block& b, double& count) const {
    auto [n, sum] = model_.moments(b.ranges);
    for (double& v : sum) v /= n;
    count = n;
    return sum;
  }

  // When features are fractions of loads in each latency level, a block whose mix of levels is a
  // blend of the plateaus around it (its feature vector lies on the line between theirs, within
  // the noise) is part of the transition between them: a ramp of miss fraction, however jagged.
  // A block with a mix of its own (e.g. far L2 between near L2 and DRAM, or near + far before DRAM
  // appears) is a plateau. Plateaus are added, most distinct first, until every other block is a
  // blend. Other reductions cannot tell a blend from a level: every block stays a plateau.
  std::vector<bool> find_plateaus(const std::vector<Block>& blocks) const {
    const std::size_t nb = blocks.size();
    const bool fractions = fold_blends_ && (r_.reduction == Reduction::LevelFractions ||
                                            r_.reduction == Reduction::MissFraction);
    std::vector<bool> plateau(nb, !fractions);
    if (nb == 0) return plateau;
    plateau.front() = plateau.back() = true;
    const double df = static_cast<double>(std::max<std::size_t>(model_.dims(), 2) - 1);
    const double blend_limit = chi2_isf(alpha_, df);
    for (;;) {
      double worst = blend_limit;
      std::size_t worst_at = nb;
      for (std::size_t j = 1; j + 1 < nb; ++j) {
        if (plateau[j]) continue;
        std::size_t l = j, r = j;
        while (!plateau[l]) --l;
        while (!plateau[r]) ++r;
        double nl, nr, nj;
        const auto fl = mean_features(blocks[l], nl);
        const auto fr = mean_features(blocks[r], nr);
        const auto fj = mean_features(blocks[j], nj);
        double uu = 0, pu = 0;
        for (std::size_t c = 0; c < fj.size(); ++c) {
          uu += (fl[c] - fr[c]) * (fl[c] - fr[c]);
          pu += (fj[c] - fr[c]) * (fl[c] - fr[c]);
        }
        const double lambda = uu > 0 ? std::clamp(pu / uu, 0.0, 1.0) : 0.0;
        double rr = 0;
        for (std::size_t c = 0; c < fj.size(); ++c) {
          const double res = fj[c] - fr[c] - lambda * (fl[c] - fr[c]);
          rr += res * res;
        }
        const double var = 1 / nj + lambda * lambda / nl + (1 - lambda) * (1 - lambda) / nr;
        const double t = rr / var;
        if (t > worst) {
          worst = t;
          worst_at = j;
        }
      }
      if (worst_at == nb) break;
      plateau[worst_at] = true;
    }
    return plateau;
  }

  static void keep_only(Block& b, std::size_t first, std::size_t last) {
    std::vector<Range> kept;
    for (auto [a, e] : b.ranges) {
      a = std::max(a, first);
      e = std::min(e, last);
      if (a < e) kept.push_back({a, e});
    }
    b.ranges = std::move(kept);
  }

  // The change from plateau a to plateau b. Excursions of a just before the change that go the
  // way of the change, and excursions of b just after it that go back, are part of the transition
  // when the plateau stretch separating them from it is at most twice as long as the excursion.
  // How far the points [first, last] go from plateau `from` towards plateau `to` (feature space).
  double towards(const Range& e, const Block& from, const Block& to) const {
    double n;
    const auto fe = mean_features(Block{{{e.first, e.second + 1}}, {}}, n);
    const auto ff = mean_features(from, n);
    const auto ft = mean_features(to, n);
    double dot = 0;
    for (std::size_t c = 0; c < fe.size(); ++c) dot += (fe[c] - ff[c]) * (ft[c] - ff[c]);
    return dot;
  }

  ChangePoint change_between(Block& a, Block& b, std::size_t transition_begin) const {
    std::size_t first = transition_begin;  // first point of the transition
    std::size_t settled = b.begin();       // first point of plateau b
    while (!a.excursions.empty()) {
      const Range e = a.excursions.back();
      const std::size_t len = e.second - e.first + 1;
      const std::size_t gap = first - (e.second + 1);
      if (gap > 2 * len || towards(e, a, b) <= 0) break;
      first = e.first;
      a.excursions.pop_back();
    }
    while (!b.excursions.empty()) {
      const Range e = b.excursions.front();
      const std::size_t len = e.second - e.first + 1;
      const std::size_t gap = e.first - settled;
      if (gap > 2 * len || towards(e, b, a) <= 0) break;
      settled = e.second + 1;
      b.excursions.erase(b.excursions.begin());
    }
    const std::size_t window_begin = a.begin();
    const std::size_t window_end = b.end();
    keep_only(a, 0, first);
    keep_only(b, settled, r_.size());

    ChangePoint cp;
    cp.index = first;
    cp.x = r_.x[first];
    cp.index_lo = first > 0 ? first - 1 : 0;
    cp.index_hi = settled;
    cp.x_lo = r_.x[cp.index_lo];
    cp.x_hi = r_.x[cp.index_hi];
    cp.level_before = median_level(a.ranges);
    cp.level_after = median_level(b.ranges);
    cp.score_before = mean_score(a.ranges);
    cp.score_after = mean_score(b.ranges);
    locate(cp, window_begin, window_end);
    return cp;
  }

  // Single-change profile likelihood over the window: significance and location posterior.
  void locate(ChangePoint& cp, std::size_t wb, std::size_t we) const {
    std::vector<double> cost;
    for (std::size_t t = wb + 1; t < we; ++t)
      cost.push_back(model_.cost(wb, t) + model_.cost(t, we));
    if (cost.empty()) return;
    const double best = *std::min_element(cost.begin(), cost.end());
    const double lr = model_.cost(wb, we) - best;
    const double tests = static_cast<double>(cost.size());
    cp.p_value = std::min(1.0, tests * chi2_sf(lr, static_cast<double>(model_.dims())));
    double total = 0, inside = 0, at = 0;
    for (std::size_t i = 0; i < cost.size(); ++i) {
      const std::size_t t = wb + 1 + i;
      const double w = std::exp(-0.5 * (cost[i] - best));
      total += w;
      if (t > cp.index_lo && t <= cp.index_hi) inside += w;
      if (t == cp.index) at = w;
    }
    cp.location_certainty = at / total;
    cp.confidence = (1 - cp.p_value) * inside / total;
  }

  Plateau plateau(const Block& b) const {
    Plateau p;
    if (b.ranges.empty()) return p;
    p.begin = b.begin();
    p.end = b.end();
    p.x_first = r_.x[p.begin];
    p.x_last = r_.x[p.end - 1];
    p.level = median_level(b.ranges);
    p.score = mean_score(b.ranges);
    return p;
  }

  const ReducedSweep& r_;
  double noise_ = 0;
  Model model_;
  double alpha_;
  bool fold_blends_;
  double same_level_ = 0;
};

}  // namespace

Segmentation segment(const ReducedSweep& reduced, const SegmentOptions& options) {
  return Segmenter(reduced, options).run(options.max_changes);
}

Segmentation segment(const std::vector<SweepPoint>& points, const SegmentOptions& options) {
  return segment(reduce(points, options.reduction), options);
}

std::optional<ChangePoint> most_likely_change(const ReducedSweep& reduced,
                                              const SegmentOptions& options) {
  const Segmentation s = segment(reduced, options);
  if (s.changes.empty()) return std::nullopt;
  // Most significant first; among equally certain ones the larger jump in score.
  return *std::min_element(s.changes.begin(), s.changes.end(), [](const auto& a, const auto& b) {
    if (a.p_value != b.p_value) return a.p_value < b.p_value;
    return std::abs(a.score_after - a.score_before) > std::abs(b.score_after - b.score_before);
  });
}

std::optional<ChangePoint> most_likely_change(const std::vector<SweepPoint>& points,
                                              const SegmentOptions& options) {
  return most_likely_change(reduce(points, options.reduction), options);
}

std::vector<LevelOnset> level_onsets(const ReducedSweep& reduced, const SegmentOptions& options) {
  std::vector<LevelOnset> out;
  for (std::size_t d = 0; d < reduced.feature_levels.size(); ++d) {
    LevelOnset onset;
    onset.level = reduced.feature_levels[d];
    onset.latency = reduced.levels.levels[onset.level].center;
    // The same sweep with this level's fraction as its only feature (and as its score).
    ReducedSweep one = reduced;
    one.reduction = Reduction::MissFraction;
    one.dims = 1;
    one.features.resize(reduced.size());
    for (std::size_t i = 0; i < reduced.size(); ++i) {
      one.features[i] = reduced.row(i)[d];
      const double s = std::sin(one.features[i]);
      one.score[i] = s * s;
    }
    one.sampling_sd = {reduced.sampling_sd[d]};
    one.feature_levels.clear();
    SegmentOptions steps = options;
    steps.fold_blends = false;
    const Segmentation seg = segment(one, steps);
    for (const ChangePoint& c : seg.changes) {
      if (c.score_after > c.score_before) onset.rises.push_back(c);
    }
    out.push_back(std::move(onset));
  }
  return out;
}

}  // namespace gputopo::analysis
