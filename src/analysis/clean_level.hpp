#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gputopo::analysis {

// The level of a sample in which a minority of values is thrown high (e.g. per-load latencies of
// short chain segments, a few of which hold a rare slow load). The search starts from the lower
// half (its median and its spread about it, scaled as for a normal sample), keeps the values
// within `cut` spreads of that centre, and re-centres on their median for a few rounds (the
// spread stays the lower half's); the level is the mean of the values kept. That mean has no bias
// from their own noise (a lower quantile would), and the share of the others says how far to trust
// it: past a half, the lower half no longer lies among the clean values.
struct CleanLevel {
  double level = 0;  // mean of the clean values (NaN for an empty sample)
  double sd = 0;     // standard deviation of the clean values
  double outlier_share = 0;
  std::size_t clean = 0;
  std::size_t n = 0;
};
// `floor`: the least spread the cut uses, relative to the median (a noise-free sample has none and
// keeps every value within cut x floor x median).
CleanLevel clean_level(std::span<const double> sample, double cut = 4.0, double floor = 0.01);

// A sample that mixes levels (e.g. segments of a chain whose loads hit two levels in a known
// share) has no single clean level: only values more than `cut` robust standard deviations above
// the median are outliers (slow loads only lengthen), and the level is the mean of the rest. At
// most `max_trimmed` values, the highest, are left out: where a reference sample of the same noise
// tells how many values rare slow loads throw high, the other high values are the mixture's.
CleanLevel high_trimmed(std::span<const double> sample, double cut = 4.0, double floor = 0.01,
                        std::size_t max_trimmed = SIZE_MAX);

// How many of `n` values rare outliers throw high, at most, where a share `outlier_share` of a
// reference sample was (its expectation plus two binomial standard deviations, plus one).
std::size_t outlier_allowance(std::size_t n, double outlier_share);

// A confidence factor from the outlier share: 1 up to a quarter of the values, 0 at half (the
// median then no longer lies among the clean values).
double outlier_confidence(double outlier_share);

}  // namespace gputopo::analysis
