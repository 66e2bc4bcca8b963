#pragma once

#include <span>
#include <string>
#include <vector>

#include "analysis/sweep.hpp"

namespace gputopo::analysis {

// A quantity inferred from a sweep, or the reason it could not be.
struct Estimate {
  bool established = false;
  double value = 0;
  double lo = 0;  // interval that contains the true value (same unit as value)
  double hi = 0;
  double confidence = 0;  // in [0, 1]
  std::string reason;     // why not established, or what limits the estimate
};

// Fetch granularity from a cold stride sweep: x = stride in bytes (ascending), samples = the
// latencies of loads that each touch a new address once. A load misses exactly when its stride
// step reaches a granule not fetched yet, so the miss fraction is min(1, stride / g). g is fitted
// to all points by least squares over the tested strides (not "first all-miss stride"); the
// confidence is the posterior weight of the chosen g against the other candidates, the interval
// runs from the largest stride that still hits to the smallest that always misses.
Estimate fetch_granularity(const std::vector<SweepPoint>& stride_sweep);

// Line size from the misses past capacity: the same array of array_bytes (just above the cache's
// cache_bytes) chased with ascending strides x. While stride <= line every line is touched and the
// array does not fit; a larger stride touches array/stride lines, which fit once
// stride >= line * array / cache. The miss-to-hit change of the sweep (with its interval) thus
// gives the line size; a power of two inside the interval is preferred and says so in reason.
// A stride that misses far more than both its neighbours aliases into a fraction of a modulo
// index's sets and is left out.
Estimate line_size(const std::vector<SweepPoint>& sweep, double array_bytes, double cache_bytes);

// "Is B disturbing A": A's latencies timed after B ran, against A's reference latencies timed
// without B. The pooled latencies are clustered into levels; the test is a one-sided
// two-proportion test that A's miss fraction (samples above the reference's lowest level) is
// larger with B. A shift of jitter inside a level therefore does not count as disturbance.
struct DisturbanceOptions {
  double alpha = 0.01;  // significance level of the decision
};

struct DisturbanceResult {
  bool disturbed = false;
  double p_value = 1;         // one-sided, H0: B does not raise A's miss fraction
  double effect = 0;          // miss fraction with B minus without B, in [-1, 1]
  double reference_miss = 0;  // miss fractions behind `effect`
  double disturbed_miss = 0;
  double median_ratio = 1;  // median(timed) / median(reference), for the record
};

DisturbanceResult disturbance_test(std::span<const double> reference, std::span<const double> timed,
                                   const DisturbanceOptions& options = {});

// Holm's step-down adjustment of one family of p-values (e.g. every two-SM test of one round):
// the smallest p times the tests, the next times one fewer, each at least the one before and at
// most 1. Rejecting where an adjusted value is below alpha keeps the chance of any false rejection
// in the family at alpha, where alpha per test lets a round of 300 tests reject 3 by chance.
std::vector<double> holm_adjusted(std::span<const double> p_values);

// The fraction p/q of api_size (q <= max_denominator, p/q <= 1) nearest to a measured size, e.g.
// an L2 segment as 1/2 of the L2 size the API reports.
struct Fraction {
  long numerator = 0;
  long denominator = 1;
  double value = 0;              // api_size * numerator / denominator
  double relative_distance = 0;  // |measured - value| / value
  // With measured_sd > 0: probability that a normal measurement N(measured, sd) is nearer to this
  // fraction than to any other candidate. With measured_sd = 0: 1 at the fraction, falling
  // linearly to 0 at the midpoint to the neighbouring candidate on the measured side.
  double confidence = 0;
};

Fraction nearest_fraction(double measured, double api_size, long max_denominator,
                          double measured_sd = 0);

}  // namespace gputopo::analysis
