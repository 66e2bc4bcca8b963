#include "analysis/spread.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gputopo::analysis {
namespace {

// A value whose halves differ by more than this many standard errors of the difference had a
// disturbed half (an interrupt, a rare slow load): it is not picked as an extreme.
constexpr double kConsistentSigmas = 4;

// The index of the largest (or smallest) of v among `candidates`.
std::size_t arg(std::span<const double> v, const std::vector<std::size_t>& candidates,
                bool largest) {
  std::size_t best = candidates.front();
  for (const auto i : candidates)
    if (largest ? v[i] > v[best] : v[i] < v[best]) best = i;
  return best;
}

}  // namespace

Spread split_half_spread(std::span<const double> first, std::span<const double> second,
                         std::span<const double> half_se) {
  Spread out;
  const std::size_t n = first.size();
  if (n < 2 || second.size() != n || half_se.size() != n) return out;
  std::vector<double> full(n);
  std::vector<std::size_t> all;
  std::vector<std::size_t> consistent;
  for (std::size_t i = 0; i < n; ++i) {
    full[i] = (first[i] + second[i]) / 2;
    all.push_back(i);
    if (std::abs(first[i] - second[i]) <= kConsistentSigmas * std::sqrt(2.0) * half_se[i])
      consistent.push_back(i);
  }
  if (consistent.size() < 2) consistent = all;
  out.argmax = arg(full, all, true);
  out.argmin = arg(full, all, false);
  out.raw = full[out.argmax] - full[out.argmin];
  double value = 0;
  double variance = 0;
  for (const auto& [pick, measure] : {std::pair{first, second}, std::pair{second, first}}) {
    const std::size_t hi = arg(pick, consistent, true);
    const std::size_t lo = arg(pick, consistent, false);
    value += (measure[hi] - measure[lo]) / 2;
    variance += (half_se[hi] * half_se[hi] + half_se[lo] * half_se[lo]) / 4;
  }
  out.value = value;
  const double half_width = 1.645 * std::sqrt(variance);
  out.lo = value - half_width;
  out.hi = value + half_width;
  return out;
}

}  // namespace gputopo::analysis
