#pragma once

#include <string>
#include <vector>

// How SMs group into TPCs and GPCs, inferred from thread-block cluster co-residency and per-SM L2
// latency. Pure functions: no device, no context.
namespace gputopo::analysis {

using SmGroups = std::vector<std::vector<int>>;

// SMs that ran in one cluster share a GPC. The union of all groups of at least `min_group` SMs
// gives connected components, each inside one GPC; SMs in no such group are `uncovered` (on an
// H200, four TPCs ran only in clusters of 2: their GPC is not known). Smaller groups are ignored,
// since a cluster of 2 may be a TPC that no larger cluster ever joined to the rest of its GPC.
struct GpcPartition {
  SmGroups gpcs;               // components, each sorted, ordered by their smallest SM
  std::vector<int> uncovered;  // SMs in no group
};
GpcPartition gpcs_from_clusters(int sm_count, const std::vector<SmGroups>& groups_by_size,
                                std::size_t min_group);

// The share of the per-SM latency variance that `groups` leave inside themselves (SMs in no group
// and unmeasured SMs, NaN, left out): near 0 where the groups explain the spread, about 1 where
// they explain none of it (at most 1). 1 where it cannot be computed.
double within_group_variance_share(const std::vector<double>& latency, const SmGroups& groups);

// A TPC grouping of the SMs: a candidate partition that the per-SM L2 latency confirms. SMs of one
// TPC share their path to L2 and read the same near-hit latency; a candidate is confirmed when its
// groups leave at most 1 % of the latency variance between SMs inside the groups (the groups
// explain the spread). Of the confirmed candidates the one with the largest groups is taken.
struct TpcEstimate {
  bool established = false;
  SmGroups tpcs;
  int sms_per_tpc = 0;  // 0 when the groups differ in size
  double confidence = 0;
  double within_share = 1;  // latency variance left inside the groups, share of the total
  double chance_pair = 1;   // share of SM pairs of different groups that agree
  std::string method;       // which candidate: "cluster pairs" or "consecutive SM ids"
  std::string reason;       // what limits the estimate, or why it is not established
};
// `latency` has one entry per SM (NaN where not measured); `cluster_pairs` are the co-resident
// groups of cluster size 2 (empty where clusters are not supported).
TpcEstimate tpcs_from_latency(const std::vector<double>& latency, double threshold,
                              const SmGroups& cluster_pairs);

}  // namespace gputopo::analysis
