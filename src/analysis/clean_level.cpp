#include "analysis/clean_level.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "analysis/summary.hpp"

namespace gputopo::analysis {

namespace {

// The median distance of a normal sample's lower half from its own median (the lower quartile),
// in standard deviations.
constexpr double kLowerHalfMad = 0.3991;
constexpr int kRounds = 4;

// The values within `width` of `center`.
std::vector<double> within(std::span<const double> sample, double center, double width) {
  std::vector<double> out;
  for (const double v : sample)
    if (std::abs(v - center) <= width) out.push_back(v);
  return out;
}

}  // namespace

CleanLevel clean_level(std::span<const double> sample, double cut, double floor) {
  CleanLevel out;
  out.n = sample.size();
  if (sample.empty()) {
    out.level = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  // Outliers only lengthen: the lower half starts the search, clean while most values are. Its
  // median and spread about it give the first cut; each round re-centres on the values kept.
  std::vector<double> sorted(sample.begin(), sample.end());
  std::sort(sorted.begin(), sorted.end());
  const std::span<const double> lower(sorted.data(), (sorted.size() + 1) / 2);
  double center = median(lower);
  std::vector<double> distance;
  for (const double v : lower) distance.push_back(std::abs(v - center));
  const double least = floor * std::abs(median(sample));
  const double scale = std::max(median(distance) / kLowerHalfMad, least);
  std::vector<double> kept = within(sorted, center, cut * scale);
  // The spread stays the lower half's: that of the values kept shrinks with each cut.
  for (int round = 1; round < kRounds && !kept.empty(); ++round) {
    center = median(kept);
    kept = within(sorted, center, cut * scale);
  }
  if (kept.empty()) kept = within(sorted, center, 0);
  out.clean = kept.size();
  const auto sum = summarize(kept);
  out.level = sum.mean;
  out.sd = sum.stdev;
  out.outlier_share = 1.0 - static_cast<double>(out.clean) / static_cast<double>(out.n);
  return out;
}

CleanLevel high_trimmed(std::span<const double> sample, double cut, double floor,
                        std::size_t max_trimmed) {
  CleanLevel out;
  out.n = sample.size();
  if (sample.empty()) {
    out.level = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  const double center = median(sample);
  const double scale = std::max(robust_sd(sample), floor * std::abs(center));
  std::vector<double> kept(sample.begin(), sample.end());
  std::sort(kept.begin(), kept.end());
  std::size_t trimmed = 0;
  while (trimmed < max_trimmed && !kept.empty() && kept.back() > center + cut * scale) {
    kept.pop_back();
    ++trimmed;
  }
  const auto sum = summarize(kept);
  out.clean = kept.size();
  out.level = sum.mean;
  out.sd = sum.stdev;
  out.outlier_share = 1.0 - static_cast<double>(out.clean) / static_cast<double>(out.n);
  return out;
}

std::size_t outlier_allowance(std::size_t n, double outlier_share) {
  const double expected = static_cast<double>(n) * std::clamp(outlier_share, 0.0, 1.0);
  return static_cast<std::size_t>(
      std::ceil(expected + 2 * std::sqrt(expected * (1 - outlier_share)) + 1));
}

double outlier_confidence(double outlier_share) {
  return std::clamp((0.5 - outlier_share) / 0.25, 0.0, 1.0);
}

}  // namespace gputopo::analysis
