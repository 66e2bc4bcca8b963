#pragma once

#include <cstdint>
#include <span>

namespace gputopo::analysis {

// The spread (largest minus smallest) of the true values behind noisy means, e.g. one latency per
// SM. The raw range of the means grows with their noise; this one does not. Each mean is shrunk
// toward the grand mean by tau^2 / (tau^2 + se_i^2), where tau^2 = max(0, var(means) - mean(se^2))
// is the variance between the true values (empirical Bayes), so noise alone gives a spread near 0
// and a true spread well above the noise is kept. The interval is the 5-95 % range of the same
// estimator over parametric bootstrap draws (means redrawn around the shrunk values with their
// standard errors; fixed seed, so it repeats).
struct Spread {
  double value = 0;
  double lo = 0;
  double hi = 0;
  double raw = 0;          // the plain range of the means
  double between_sd = 0;   // tau
  std::size_t argmin = 0;  // index of the smallest shrunk value
  std::size_t argmax = 0;
};
// `means` and `standard_errors` of equal length, at least two.
Spread spread_of_means(std::span<const double> means, std::span<const double> standard_errors,
                       std::uint32_t draws = 400);

}  // namespace gputopo::analysis
