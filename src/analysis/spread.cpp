#include "analysis/spread.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "analysis/summary.hpp"

namespace gputopo::analysis {
namespace {

struct Shrunk {
  std::vector<double> values;
  double tau = 0;
};

Shrunk shrink(std::span<const double> means, std::span<const double> se) {
  const auto n = static_cast<double>(means.size());
  double grand = 0;
  for (double m : means) grand += m;
  grand /= n;
  double var = 0;
  double noise = 0;
  for (std::size_t i = 0; i < means.size(); ++i) {
    var += (means[i] - grand) * (means[i] - grand);
    noise += se[i] * se[i];
  }
  var /= n - 1;
  noise /= n;
  Shrunk out;
  const double tau2 = std::max(0.0, var - noise);
  out.tau = std::sqrt(tau2);
  for (std::size_t i = 0; i < means.size(); ++i) {
    const double s2 = se[i] * se[i];
    const double keep = tau2 + s2 > 0 ? tau2 / (tau2 + s2) : 1.0;
    out.values.push_back(grand + keep * (means[i] - grand));
  }
  return out;
}

// An approximately normal deviate (sum of 12 uniforms less 6) from the raw engine output, so that
// every platform draws the same numbers.
double normal(std::mt19937_64& rng) {
  double sum = 0;
  for (int k = 0; k < 12; ++k) sum += static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return sum - 6.0;
}

double range(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi - *lo;
}
}  // namespace

Spread spread_of_means(std::span<const double> means, std::span<const double> standard_errors,
                       std::uint32_t draws) {
  Spread out;
  if (means.size() < 2 || standard_errors.size() != means.size()) return out;
  const auto shrunk = shrink(means, standard_errors);
  out.value = range(shrunk.values);
  out.between_sd = shrunk.tau;
  out.raw = range(std::vector<double>(means.begin(), means.end()));
  const auto [lo, hi] = std::minmax_element(shrunk.values.begin(), shrunk.values.end());
  out.argmin = static_cast<std::size_t>(lo - shrunk.values.begin());
  out.argmax = static_cast<std::size_t>(hi - shrunk.values.begin());
  std::mt19937_64 rng(0x5b7e4d);
  std::vector<double> estimates;
  std::vector<double> redrawn(means.size());
  for (std::uint32_t d = 0; d < draws; ++d) {
    for (std::size_t i = 0; i < means.size(); ++i)
      redrawn[i] = shrunk.values[i] + standard_errors[i] * normal(rng);
    estimates.push_back(range(shrink(redrawn, standard_errors).values));
  }
  out.lo = std::min(out.value, quantile(estimates, 0.05));
  out.hi = std::max(out.value, quantile(estimates, 0.95));
  return out;
}

}  // namespace gputopo::analysis
