#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace gputopo::analysis {

// Latency levels found in a sample (hit, miss, near/far L2, DRAM, rare outliers, ...).
//
// Method (docs/methods.md): the log-latencies are binned into a fine histogram (so the result does
// not depend on sample order and is invariant to scaling all latencies), an exact 1-D k-means
// partition is computed for every k up to max_levels, k is chosen by BIC of the Gaussian
// (classification) likelihood of log-latency, and adjacent levels whose fitted mixture has no
// density dip between them, or whose centers are closer than min_level_ratio, are merged.
struct ClusterOptions {
  std::size_t max_levels = 6;  // upper bound on k
  std::size_t bins = 1024;     // histogram resolution over [min, max] of log-latency
  // Adjacent levels whose centers differ by less than this factor are one level. One cache level
  // read from different SMs spreads by up to 13 % (H100 L2 hits: 286-321 cycles), while distinct
  // levels of the GPU hierarchies we model differ by 27 % or more (H100 far L2 550 vs DRAM 700).
  double min_level_ratio = 1.2;
};

struct Level {
  double center = 0;  // geometric mean latency of the level (input units)
  double weight = 0;  // fraction of the samples in the level
  double lo = 0;      // smallest and largest latency assigned to the level
  double hi = 0;
  double log_sd = 0;  // spread of log-latency inside the level
};

struct Clustering {
  std::vector<Level> levels;        // ascending by center; never empty for a non-empty sample
  std::vector<double> boundaries;   // levels.size() - 1 latency thresholds between levels
  std::vector<std::size_t> labels;  // level of each input sample (only from cluster_levels(span))
  double bic = 0;                   // BIC of the chosen k (lower is better)

  std::size_t k() const { return levels.size(); }
  // Level index of a latency: the number of boundaries below or at it.
  std::size_t classify(double latency) const;
};

// Empty input gives an empty Clustering. Non-positive and non-finite values are ignored.
Clustering cluster_levels(std::span<const double> samples, const ClusterOptions& options = {});

// Pools several samples (e.g. all points of a sweep) without copying; labels stay empty.
Clustering cluster_levels(std::span<const std::span<const double>> samples,
                          const ClusterOptions& options = {});

// The weight of c's heaviest level (0 when c has none): the share of the samples in the dominant
// level.
double dominant_level_share(const Clustering& c);

// Fraction of the sample above the lowest level of c (0 when c has one level).
double miss_fraction(std::span<const double> sample, const Clustering& c);

// The share of `sample` in the level that holds most of `reference`, the two clustered together:
// e.g. the loads of a chase past the near L2 level that still hit near, with a chase inside the
// near level as the reference. 0 when either is empty.
double share_in_level_of(std::span<const double> reference, std::span<const double> sample);

// Fraction of the sample in each level of c (sums to 1 over the finite positive values).
std::vector<double> level_fractions(std::span<const double> sample, const Clustering& c);

}  // namespace gputopo::analysis
