#include "analysis/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "analysis/log_histogram.hpp"

namespace gputopo::analysis {
namespace {

bool usable(double v) { return std::isfinite(v) && v > 0; }

using detail::LogBin;
using detail::LogHistogram;
using Histogram = LogHistogram;

}  // namespace

namespace detail {

namespace {

// The occupied bins of `all` into h, with the total count and the lattice spacing of the values.
void keep_occupied(LogHistogram& h, const std::vector<LogBin>& all) {
  // Lattice spacing: the smallest gap between distinct values within 10 % of each other.
  double resolution = std::numeric_limits<double>::infinity();
  const LogBin* prev = nullptr;
  h.bins.reserve(all.size());
  for (std::size_t b = 0; b < all.size(); ++b) {
    const LogBin& bin = all[b];
    if (bin.count == 0) continue;
    h.total += bin.count;
    if (bin.max > bin.min) resolution = std::min(resolution, bin.max - bin.min);
    if (prev != nullptr && bin.min < 1.1 * prev->max) {
      resolution = std::min(resolution, bin.min - prev->max);
    }
    h.bins.push_back(bin);
    h.occupied.push_back(static_cast<std::uint32_t>(b));
    prev = &h.bins.back();
  }
  h.resolution = std::isfinite(resolution) ? resolution : 0.0;
}

}  // namespace

LogHistogram build_log_histogram(std::span<const std::span<const double>> samples,
                                 std::size_t nbins) {
  LogHistogram h;
  std::size_t count = 0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0;
  for (auto s : samples) {
    count += s.size();
    for (double v : s) {
      if (!usable(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  h.sample_bin.assign(count, LogHistogram::kUnusable);
  if (hi == 0) return h;
  nbins = std::clamp<std::size_t>(nbins, 2, LogHistogram::kUnusable - 1);
  h.raw_bins = nbins;
  h.origin = std::log(lo);
  const double span = std::log(hi) - h.origin;
  h.width = span > 0 ? span / static_cast<double>(nbins) : 1.0;
  std::vector<LogBin> all(nbins, LogBin{0, 0, 0, std::numeric_limits<double>::infinity(), 0});
  const double inv_width = 1 / h.width;
  auto bin_of = [&](double l) {
    return std::min(static_cast<std::size_t>(std::max(l, 0.0) * inv_width), nbins - 1);
  };
  auto add = [&](LogBin& bin, double v, double l, double times) {
    bin.count += times;
    bin.sum += times * l;
    bin.sumsq += times * l * l;
    bin.min = std::min(bin.min, v);
    bin.max = std::max(bin.max, v);
  };
  // Whole cycle counts (the usual case) are counted per value: one logarithm per distinct value.
  constexpr std::uint16_t kUnset = LogHistogram::kUnusable;
  const std::size_t ints = static_cast<std::size_t>(std::min(hi, 65535.0)) + 1;
  std::vector<std::uint32_t> int_count(ints, 0);
  std::vector<std::uint16_t> int_bin(ints, kUnset);
  const double int_limit = static_cast<double>(ints);
  std::size_t at = 0;
  for (auto s : samples) {
    for (double v : s) {
      const std::size_t here = at++;
      if (!usable(v)) continue;
      if (v < int_limit) {
        const auto i = static_cast<std::size_t>(v);
        if (static_cast<double>(i) == v) {
          if (int_bin[i] == kUnset) {
            int_bin[i] = static_cast<std::uint16_t>(bin_of(std::log(v) - h.origin));
          }
          ++int_count[i];
          h.sample_bin[here] = int_bin[i];
          continue;
        }
      }
      const double l = std::log(v) - h.origin;
      const std::size_t b = bin_of(l);
      h.sample_bin[here] = static_cast<std::uint16_t>(b);
      add(all[b], v, l, 1);
    }
  }
  for (std::size_t i = 1; i < ints; ++i) {
    if (int_count[i] == 0) continue;
    const double v = static_cast<double>(i);
    add(all[int_bin[i]], v, std::log(v) - h.origin, static_cast<double>(int_count[i]));
  }
  keep_occupied(h, all);
  return h;
}

}  // namespace detail

namespace {

// Prefix sums over the occupied bins for O(1) moments of any contiguous group.
struct Prefix {
  std::vector<double> n, s, ss;
  explicit Prefix(const std::vector<LogBin>& bins)
      : n(bins.size() + 1, 0), s(bins.size() + 1, 0), ss(bins.size() + 1, 0) {
    for (std::size_t i = 0; i < bins.size(); ++i) {
      n[i + 1] = n[i] + bins[i].count;
      s[i + 1] = s[i] + bins[i].sum;
      ss[i + 1] = ss[i] + bins[i].sumsq;
    }
  }
  // Sum of squared deviations of the group of bins [i, j).
  double sse(std::size_t i, std::size_t j) const {
    const double cn = n[j] - n[i];
    if (cn <= 0) return 0;
    const double cs = s[j] - s[i];
    return std::max(0.0, (ss[j] - ss[i]) - cs * cs / cn);
  }
};

// A contiguous group of bins [begin, end) seen as one Gaussian level in log-latency.
struct Group {
  std::size_t begin = 0;
  std::size_t end = 0;
  double n = 0;
  double mean = 0;  // log units, relative to the histogram origin
  double var = 0;   // including the resolution floor
};

Group make_group(const Histogram& h, const Prefix& p, std::size_t begin, std::size_t end) {
  Group g{begin, end, p.n[end] - p.n[begin], 0, 0};
  g.mean = (p.s[end] - p.s[begin]) / g.n;
  const double relative_resolution = h.resolution / std::exp(g.mean + h.origin);
  g.var =
      p.sse(begin, end) / g.n + relative_resolution * relative_resolution + h.width * h.width / 12;
  return g;
}

// Exact 1-D k-means over the bins for k = 1..kmax: cut[k][j] is the start of the last group of
// the best k-partition of bins [0, j]. Divide and conquer (the optimal cut is monotone in j).
std::vector<std::vector<std::size_t>> kmeans_cuts(const Prefix& p, std::size_t nbins,
                                                  std::size_t kmax) {
  std::vector<std::vector<std::size_t>> cut(kmax + 1, std::vector<std::size_t>(nbins, 0));
  std::vector<double> prev(nbins), cur(nbins);
  for (std::size_t j = 0; j < nbins; ++j) prev[j] = p.sse(0, j + 1);
  for (std::size_t k = 2; k <= kmax; ++k) {
    std::fill(cur.begin(), cur.end(), std::numeric_limits<double>::infinity());
    // solve(jlo, jhi, olo, ohi): best cut for j in [jlo, jhi] lies in [olo, ohi]
    auto solve = [&](auto&& self, std::size_t jlo, std::size_t jhi, std::size_t olo,
                     std::size_t ohi) -> void {
      if (jlo > jhi) return;
      const std::size_t j = (jlo + jhi) / 2;
      double best = std::numeric_limits<double>::infinity();
      std::size_t arg = olo;
      for (std::size_t i = olo; i <= std::min(ohi, j); ++i) {
        const double c = prev[i - 1] + p.sse(i, j + 1);
        if (c < best) {
          best = c;
          arg = i;
        }
      }
      cur[j] = best;
      cut[k][j] = arg;
      if (j > jlo) self(self, jlo, j - 1, olo, arg);
      self(self, j + 1, jhi, arg, ohi);
    };
    solve(solve, k - 1, nbins - 1, k - 1, nbins - 1);
    std::swap(prev, cur);
  }
  return cut;
}

std::vector<Group> groups_for_k(const Histogram& h, const Prefix& p,
                                const std::vector<std::vector<std::size_t>>& cut, std::size_t k) {
  std::vector<Group> groups(k);
  std::size_t end = h.bins.size();
  for (std::size_t kk = k; kk >= 1; --kk) {
    const std::size_t begin = kk == 1 ? 0 : cut[kk][end - 1];
    groups[kk - 1] = make_group(h, p, begin, end);
    end = begin;
  }
  return groups;
}

double bic(const std::vector<Group>& groups, double total) {
  double log_l = 0;
  for (const Group& g : groups) {
    log_l += g.n * std::log(g.n / total) - 0.5 * g.n * (std::log(2 * std::numbers::pi * g.var) + 1);
  }
  const double params = 3.0 * static_cast<double>(groups.size()) - 1;
  return -2 * log_l + params * std::log(total);
}

double log_component(const Group& g, double total, double t) {
  const double d = t - g.mean;
  return std::log(g.n / total) - 0.5 * std::log(2 * std::numbers::pi * g.var) - 0.5 * d * d / g.var;
}

// True when the two-Gaussian mixture of adjacent groups has a density dip between their means.
bool bimodal(const Group& a, const Group& b, double total) {
  constexpr int kGrid = 200;
  double previous = 0;
  bool descended = false;
  for (int i = 0; i <= kGrid; ++i) {
    const double t = a.mean + (b.mean - a.mean) * i / kGrid;
    const double la = log_component(a, total, t);
    const double lb = log_component(b, total, t);
    const double m = std::max(la, lb);
    const double f = m + std::log(std::exp(la - m) + std::exp(lb - m));
    if (i > 0) {
      if (f < previous - 1e-12) descended = true;
      if (descended && f > previous + 1e-12) return true;
    }
    previous = f;
  }
  return false;
}

// Boundary between adjacent groups: where their weighted densities are equal, kept inside the
// empty stretch between the groups' extreme values so that classify() reproduces the partition.
double boundary(const Histogram& h, const Group& a, const Group& b) {
  const double lo = std::log(h.bins[a.end - 1].max) - h.origin;
  const double hi = std::log(h.bins[b.begin].min) - h.origin;
  auto diff = [&](double t) { return log_component(a, h.total, t) - log_component(b, h.total, t); };
  double l = a.mean, r = b.mean, t = 0.5 * (lo + hi);
  if (diff(l) > 0 && diff(r) < 0) {
    for (int i = 0; i < 100; ++i) {
      const double m = 0.5 * (l + r);
      (diff(m) > 0 ? l : r) = m;
    }
    t = std::clamp(0.5 * (l + r), lo, hi);
  }
  // Midway in the gap when the equal-density point falls on a data value.
  if (t <= lo || t >= hi) t = 0.5 * (lo + hi);
  return std::exp(t + h.origin);
}

}  // namespace

namespace detail {

Clustering cluster_log_histogram(const LogHistogram& h, const ClusterOptions& options,
                                 std::vector<std::uint8_t>& level_of_raw_bin) {
  Clustering c;
  level_of_raw_bin.assign(h.raw_bins, 0);
  if (h.bins.empty()) return c;
  const Prefix p(h.bins);
  const std::size_t kmax =
      std::clamp<std::size_t>(options.max_levels, 1, std::min<std::size_t>(h.bins.size(), 255));
  const auto cut = kmeans_cuts(p, h.bins.size(), kmax);
  std::vector<Group> best;
  double best_bic = std::numeric_limits<double>::infinity();
  for (std::size_t k = 1; k <= kmax; ++k) {
    auto groups = groups_for_k(h, p, cut, k);
    const double b = bic(groups, h.total);
    if (b < best_bic) {
      best_bic = b;
      best = std::move(groups);
    }
  }
  // One mode, one level: merge the adjacent pair with the least separated means while any pair
  // has no density dip between them.
  for (;;) {
    std::size_t merge_at = best.size();
    double closest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i + 1 < best.size(); ++i) {
      if (bimodal(best[i], best[i + 1], h.total)) continue;
      const double sep =
          std::abs(best[i + 1].mean - best[i].mean) / std::sqrt(best[i].var + best[i + 1].var);
      if (sep < closest) {
        closest = sep;
        merge_at = i;
      }
    }
    if (merge_at == best.size()) break;
    best[merge_at] = make_group(h, p, best[merge_at].begin, best[merge_at + 1].end);
    best.erase(best.begin() + static_cast<std::ptrdiff_t>(merge_at) + 1);
  }
  // Levels closer than the resolution of what a level is: merge the closest pair first.
  const double min_gap = std::log(std::max(options.min_level_ratio, 1.0));
  for (;;) {
    std::size_t merge_at = best.size();
    double closest = min_gap;
    for (std::size_t i = 0; i + 1 < best.size(); ++i) {
      const double gap = best[i + 1].mean - best[i].mean;
      if (gap < closest) {
        closest = gap;
        merge_at = i;
      }
    }
    if (merge_at == best.size()) break;
    best[merge_at] = make_group(h, p, best[merge_at].begin, best[merge_at + 1].end);
    best.erase(best.begin() + static_cast<std::ptrdiff_t>(merge_at) + 1);
  }
  c.bic = bic(best, h.total);
  for (std::size_t i = 0; i < best.size(); ++i) {
    const Group& g = best[i];
    Level level;
    level.center = std::exp(g.mean + h.origin);
    level.weight = g.n / h.total;
    level.lo = h.bins[g.begin].min;
    level.hi = h.bins[g.end - 1].max;
    level.log_sd = std::sqrt(p.sse(g.begin, g.end) / g.n);
    c.levels.push_back(level);
    if (i + 1 < best.size()) c.boundaries.push_back(boundary(h, g, best[i + 1]));
    for (std::size_t b = g.begin; b < g.end; ++b) {
      level_of_raw_bin[h.occupied[b]] = static_cast<std::uint8_t>(i);
    }
  }
  // Empty raw bins between occupied ones take the level of the occupied bin below them.
  std::uint8_t current = 0;
  for (std::size_t b = 0, next = 0; b < h.raw_bins; ++b) {
    if (next < h.occupied.size() && h.occupied[next] == b) {
      current = level_of_raw_bin[b];
      ++next;
    }
    level_of_raw_bin[b] = current;
  }
  return c;
}

}  // namespace detail

std::size_t Clustering::classify(double latency) const {
  return static_cast<std::size_t>(std::upper_bound(boundaries.begin(), boundaries.end(), latency) -
                                  boundaries.begin());
}

Clustering cluster_levels(std::span<const std::span<const double>> samples,
                          const ClusterOptions& options) {
  std::vector<std::uint8_t> level_of_raw_bin;
  return detail::cluster_log_histogram(detail::build_log_histogram(samples, options.bins), options,
                                       level_of_raw_bin);
}

Clustering cluster_levels(std::span<const double> samples, const ClusterOptions& options) {
  const std::span<const double> one[] = {samples};
  Clustering c = cluster_levels(std::span<const std::span<const double>>(one), options);
  if (c.levels.empty()) return c;
  c.labels.reserve(samples.size());
  for (double v : samples) c.labels.push_back(c.classify(v));
  return c;
}

std::vector<double> level_fractions(std::span<const double> sample, const Clustering& c) {
  std::vector<double> f(std::max<std::size_t>(c.k(), 1), 0.0);
  double n = 0;
  for (double v : sample) {
    if (!usable(v)) continue;
    f[c.classify(v)] += 1;
    n += 1;
  }
  if (n > 0) {
    for (double& x : f) x /= n;
  }
  return f;
}

double dominant_level_share(const Clustering& c) {
  double dominant = 0;
  for (const auto& l : c.levels) dominant = std::max(dominant, l.weight);
  return dominant;
}

double miss_fraction(std::span<const double> sample, const Clustering& c) {
  if (c.k() < 2) return 0;
  return 1 - level_fractions(sample, c)[0];
}

double share_in_level_of(std::span<const double> reference, std::span<const double> sample) {
  if (reference.empty() || sample.empty()) return 0;
  const std::span<const double> both[] = {reference, sample};
  const auto levels = cluster_levels(std::span<const std::span<const double>>(both));
  if (levels.levels.empty()) return 0;
  const auto in_reference = level_fractions(reference, levels);
  const auto level = static_cast<std::size_t>(
      std::max_element(in_reference.begin(), in_reference.end()) - in_reference.begin());
  return level_fractions(sample, levels)[level];
}

}  // namespace gputopo::analysis
