#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "analysis/cluster.hpp"

namespace gputopo::analysis {

// One point of a sweep: the swept parameter (array bytes, stride bytes, ...) and the per-load
// latencies measured there. Points are expected in ascending x; sample order does not matter.
struct SweepPoint {
  double x = 0;
  std::vector<double> samples;
};

// How each point is reduced before change points are searched (docs/methods.md compares them).
enum class Reduction {
  // Default. The sweep's pooled latencies are clustered into levels (cluster_levels); each point
  // becomes the fractions of its loads in every level but the lowest, in variance-stabilised
  // units asin(sqrt(fraction)). Insensitive to jitter inside a level, to rare outliers (their own
  // level, constant across points) and to scaling all latencies; sees a 1 % change in miss
  // fraction and tells near L2, far L2 and DRAM apart.
  LevelFractions,
  // Fraction of loads above the lowest level, variance-stabilised like LevelFractions.
  MissFraction,
  // 10 % trimmed mean latency: robust to outliers, blind to miss fractions below the trim.
  TrimmedMean,
  // MT4G's geometric mapping sqrt(sum_j (r_ij - min r)^2); kept for comparison only.
  Geometric,
};

// A sweep reduced to a few numbers per point.
struct ReducedSweep {
  Reduction reduction = Reduction::LevelFractions;
  std::vector<double> x;
  std::size_t dims = 0;          // features per point
  std::vector<double> features;  // x.size() * dims values, row-major by point
  // Per point, one number in latency units for display and plateau levels: the mean latency with
  // every sample replaced by the center of its level (LevelFractions, MissFraction), or the
  // reduction itself (TrimmedMean, Geometric).
  std::vector<double> score;
  std::vector<double> median;  // per-point median latency
  std::vector<std::size_t> n;  // per-point sample count
  Clustering levels;           // pooled levels (empty for TrimmedMean and Geometric)
  // LevelFractions: the level (index into levels.levels) behind each feature.
  std::vector<std::size_t> feature_levels;
  // Per feature: the standard error of one point's value that its own finite sample implies. The
  // change-point search never assumes less point-to-point noise than this.
  std::vector<double> sampling_sd;

  std::size_t size() const { return x.size(); }
  std::span<const double> row(std::size_t i) const { return {features.data() + i * dims, dims}; }
};

ReducedSweep reduce(const std::vector<SweepPoint>& points, Reduction reduction);

}  // namespace gputopo::analysis
