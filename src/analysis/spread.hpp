#pragma once

#include <cstddef>
#include <span>

namespace gputopo::analysis {

// The spread (largest minus smallest) of the true values behind noisy means, e.g. one latency per
// SM. The plain range of the means grows with their noise: the largest and the smallest mean are
// the ones the noise pushed outwards. Here each value is measured twice, independently (two halves
// of its samples): one half picks the largest and the smallest, the other half measures their
// difference, whose noise then has mean zero; both ways round, averaged. Values whose halves
// disagree beyond their noise (a disturbed half) are not picked. Noise alone gives a spread near
// 0; a true spread well above the noise is kept.
struct Spread {
  double value = 0;
  double lo = 0;  // value -+ 1.645 standard errors of the difference (a 90 % interval)
  double hi = 0;
  double raw = 0;          // the plain range of the full means
  std::size_t argmin = 0;  // the smallest and largest full mean
  std::size_t argmax = 0;
};
// `first[i]` and `second[i]` are independent half-means of value i, `half_se[i]` the standard
// error of one half; at least two values.
Spread split_half_spread(std::span<const double> first, std::span<const double> second,
                         std::span<const double> half_se);

}  // namespace gputopo::analysis
