#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace gputopo::analysis {

// Descriptive statistics of one sample. An empty sample gives n = 0 and NaN everywhere else.
struct Summary {
  std::size_t n = 0;
  double mean = 0;
  double median = 0;
  double p5 = 0;   // 5th percentile (linear interpolation between order statistics, like numpy)
  double p95 = 0;  // 95th percentile
  double min = 0;
  double max = 0;
  double stdev = 0;         // sample standard deviation (n - 1 in the denominator); 0 for n = 1
  double mad = 0;           // median absolute deviation, unscaled
  double trimmed_mean = 0;  // mean of the values left after cutting 10 % from each end
};

Summary summarize(std::span<const double> sample);

// Quantile q in [0, 1] with numpy's default ("linear") interpolation, by selection on a copy.
double quantile(std::span<const double> sample, double q);

// Several quantiles of one sample, `qs` ascending: one copy, each found by selection from where
// the one before left off.
std::vector<double> quantiles(std::span<const double> sample, std::span<const double> qs);

// The same on a sample that is already sorted ascending (no copy).
double quantile_sorted(std::span<const double> sorted, double q);

double median(std::span<const double> sample);

// The median of (value, weight) pairs: the value where the cumulative weight passes half the
// total; at exactly half, the midpoint of the two middle values, like an ordinary median. 0 for
// none.
double weighted_median(std::vector<std::pair<double, double>> values_and_weights);

// Mean after dropping floor(trim * n) values from each end; trim in [0, 0.5).
double trimmed_mean(std::span<const double> sample, double trim);

// Scale estimate 1.4826 * MAD: equals the standard deviation for normal data, ignores outliers.
double robust_sd(std::span<const double> sample);

}  // namespace gputopo::analysis
