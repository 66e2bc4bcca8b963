#pragma once

#include <cstddef>
#include <map>
#include <vector>

// How many thread-block clusters fit on a GPU at once, as a function of how its SMs group, and
// the groupings that reproduce counts the driver gave. Pure functions: no device, no context.
namespace gputopo::analysis {

using SmGroups = std::vector<std::vector<int>>;

// The model: the SMs form placement units (GPCs, or TPCs that no cluster combines with others);
// a cluster of k blocks, one block per SM, runs on k SMs of one unit, so a unit of s SMs holds
// floor(s / k) clusters at once and the GPU the sum over its units. The count for each size in
// `sizes`.
std::map<int, int> predicted_cluster_counts(const std::vector<int>& unit_sizes,
                                            const std::vector<int>& sizes);

// Placement units that reproduce `counts` (cluster size -> clusters at once): the `fixed`
// components (SMs known to share a unit) stay as they are; each of the `loose` groups joins one
// of them or a unit of loose groups alone. Every such assignment is tried (at most `limit`).
struct UnitAssignment {
  // For each loose group: the index of the fixed component it joins, or fixed.size() + j for the
  // j-th unit made of loose groups alone.
  std::vector<int> target;
  SmGroups units;  // the resulting units, fixed ones first (in their order), then the new ones
};
struct OccupancyFit {
  // The first kKeptMatching assignments whose predicted counts equal `counts`, and how many did:
  // on a GPU of hundreds of SMs whose clusters tie few of them, nearly every one of the `limit`
  // tried matches, and keeping each would take gigabytes.
  static constexpr std::size_t kKeptMatching = 8;
  std::vector<UnitAssignment> matching;
  std::size_t matching_count = 0;
  int most_new_units = 0;  // the most units of loose groups alone in a matching assignment
  std::size_t tried = 0;
  bool complete = true;  // false when `limit` stopped the search
  // For each loose group: the targets it takes across the matching assignments.
  std::vector<std::vector<int>> targets_of_loose;
};
OccupancyFit fit_cluster_counts(const SmGroups& fixed, const SmGroups& loose,
                                const std::map<int, int>& counts, std::size_t limit = 1'000'000);

}  // namespace gputopo::analysis
