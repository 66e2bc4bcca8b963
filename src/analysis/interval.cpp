#include "analysis/interval.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace gputopo::analysis {

namespace {
constexpr double kZ95 = 1.959964;
}

double t95(std::size_t dof) {
  // Student's t, 97.5th percentile, for 1..30 degrees of freedom; 1.96 beyond.
  static constexpr std::array<double, 30> table{
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof == 0) return table[0];
  return dof <= table.size() ? table[dof - 1] : kZ95;
}

Bounds mean_interval(std::span<const double> x) {
  if (x.empty()) return {};
  const double n = static_cast<double>(x.size());
  double mean = 0;
  for (double v : x) mean += v;
  mean /= n;
  if (x.size() < 2) return {mean, mean};
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / (n - 1));
  const double half = t95(x.size() - 1) * sd * std::sqrt(2.0 / n);
  return {mean - half, mean + half};
}

Bounds quantile_interval(std::span<const double> x, double q) {
  if (x.empty()) return {};
  std::vector<double> s(x.begin(), x.end());
  std::sort(s.begin(), s.end());
  const double n = static_cast<double>(s.size());
  const double half = kZ95 * std::sqrt(2.0 * n * q * (1 - q));
  const auto rank = [&](double r) {
    return s[static_cast<std::size_t>(std::clamp(r, 0.0, n - 1))];
  };
  return {rank(std::floor(n * q - half)), rank(std::ceil(n * q + half))};
}

Bounds best_of_interval(std::span<const double> x) {
  if (x.empty()) return {};
  const Bounds m = mean_interval(x);
  const double best = *std::max_element(x.begin(), x.end());
  const double half = (m.hi - m.lo) / 2;
  return {std::min(m.lo, best), best + half};
}

Bounds widen(Bounds b, double resolution) { return {b.lo - resolution, b.hi + resolution}; }

Bounds holding(Bounds b, double value) { return {std::min(b.lo, value), std::max(b.hi, value)}; }

Bounds hull(Bounds a, Bounds b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }

}  // namespace gputopo::analysis
