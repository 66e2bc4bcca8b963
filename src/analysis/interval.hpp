#pragma once

#include <cstddef>
#include <span>

// The 95 % intervals every measured value carries (docs/methods.md, "Intervals"): where the value
// of a repeat run on the same GPU would fall 95 % of the time, from the repeats one run takes.
// A repeat's estimate and this run's each carry the estimator's sampling error, so the interval is
// the estimate's own 95 % interval widened by sqrt(2).
namespace gputopo::analysis {

struct Bounds {
  double lo = 0;
  double hi = 0;
};

// The two-sided 95 % quantile of Student's t with `dof` degrees of freedom (1.96 for many).
double t95(std::size_t dof);

// The mean of `x` -+ t95 x sd x sqrt(2 / n). One sample: [x, x].
Bounds mean_interval(std::span<const double> x);
// Distribution-free, from order statistics: the ranks n q -+ 1.96 sqrt(2 n q (1 - q)) of the
// sorted sample, clamped to the sample's range.
Bounds quantile_interval(std::span<const double> x, double q);
// The best of several repeats (a bandwidth's fastest run): from the repeats' mean interval's
// lower bound (the rate the hardware sustains when something gets in the way) to the best repeat
// plus the mean interval's half width.
Bounds best_of_interval(std::span<const double> x);

// `b` grown by `resolution` on each side, and grown to hold `value`.
Bounds widen(Bounds b, double resolution);
Bounds holding(Bounds b, double value);
// The smallest interval holding both.
Bounds hull(Bounds a, Bounds b);

}  // namespace gputopo::analysis
