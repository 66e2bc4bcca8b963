#include "analysis/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gputopo::analysis {

double quantile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double h = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

namespace {

// Quantile q of v by selection: v[from..] holds the order statistics from `from` on, in any order,
// each at least every value before it. Leaves v partitioned at the quantile's lower order
// statistic, which it returns in `from` for the next, larger quantile.
double select_quantile(std::vector<double>& v, double q, std::size_t& from) {
  const double h = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const auto lo = std::max(static_cast<std::size_t>(std::floor(h)), from);
  const auto at = v.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(from), at, v.end());
  from = lo;
  const double above = lo + 1 < v.size() ? *std::min_element(at + 1, v.end()) : *at;
  return *at + (h - static_cast<double>(lo)) * (above - *at);
}

}  // namespace

double quantile(std::span<const double> sample, double q) {
  return quantiles(sample, std::span<const double>(&q, 1)).front();
}

std::vector<double> quantiles(std::span<const double> sample, std::span<const double> qs) {
  if (sample.empty())
    return std::vector<double>(qs.size(), std::numeric_limits<double>::quiet_NaN());
  std::vector<double> v(sample.begin(), sample.end());
  std::vector<double> out;
  std::size_t from = 0;
  for (const double q : qs) out.push_back(select_quantile(v, q, from));
  return out;
}

double median(std::span<const double> sample) { return quantile(sample, 0.5); }

double weighted_median(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  double total = 0;
  for (const auto& [x, w] : v) total += w;
  double cumulative = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    cumulative += v[i].second;
    if (std::abs(cumulative - total / 2) <= 1e-12 * total && i + 1 < v.size())
      return (v[i].first + v[i + 1].first) / 2;
    if (cumulative > total / 2) return v[i].first;
  }
  return v.empty() ? 0.0 : v.back().first;
}

namespace {

double trimmed_mean_sorted(std::span<const double> sorted, double trim) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto cut =
      static_cast<std::size_t>(std::clamp(trim, 0.0, 0.5) * static_cast<double>(sorted.size()));
  const auto kept = sorted.subspan(cut, sorted.size() - 2 * cut);
  if (kept.empty()) return quantile_sorted(sorted, 0.5);
  return std::accumulate(kept.begin(), kept.end(), 0.0) / static_cast<double>(kept.size());
}

double mad_sorted(std::span<const double> sorted) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double med = quantile_sorted(sorted, 0.5);
  std::vector<double> dev(sorted.size());
  std::transform(sorted.begin(), sorted.end(), dev.begin(),
                 [med](double v) { return std::abs(v - med); });
  std::sort(dev.begin(), dev.end());
  return quantile_sorted(dev, 0.5);
}

}  // namespace

double trimmed_mean(std::span<const double> sample, double trim) {
  std::vector<double> v(sample.begin(), sample.end());
  std::sort(v.begin(), v.end());
  return trimmed_mean_sorted(v, trim);
}

double robust_sd(std::span<const double> sample) {
  std::vector<double> v(sample.begin(), sample.end());
  std::sort(v.begin(), v.end());
  return 1.482602218505602 * mad_sorted(v);
}

Summary summarize(std::span<const double> sample) {
  Summary s;
  s.n = sample.size();
  if (sample.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean = s.median = s.p5 = s.p95 = s.min = s.max = s.stdev = s.mad = s.trimmed_mean = nan;
    return s;
  }
  std::vector<double> v(sample.begin(), sample.end());
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stdev = v.size() > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  s.median = quantile_sorted(v, 0.5);
  s.p5 = quantile_sorted(v, 0.05);
  s.p95 = quantile_sorted(v, 0.95);
  s.min = v.front();
  s.max = v.back();
  s.mad = mad_sorted(v);
  s.trimmed_mean = trimmed_mean_sorted(v, 0.1);
  return s;
}

}  // namespace gputopo::analysis
