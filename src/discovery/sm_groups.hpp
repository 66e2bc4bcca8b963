#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "device/requests.hpp"
#include "discovery/context.hpp"

namespace gputopo::discovery {

// Which SMs share one instance of a cache, by two-SM interference: A on SM s and B on SM t, in two
// blocks, each warm `bytes` (together more than one instance holds), then A is timed. If s and t
// share the instance, B evicts A and A misses; if not, A hits. A significance test against A
// beside a tiny B decides "disturbed".
struct SmGroupsSpec {
  device::Space space = device::Space::L2;
  std::uint64_t bytes = 0;
  std::uint32_t stride = 128;
  std::vector<int> sms;  // the SMs to group, in the order they are taken as references
  // True: round after round, the first SM not yet grouped against the others not yet grouped,
  // until every SM has a group; false: the first SM's group only.
  bool all_rounds = true;
  // The least rise of A's miss share (0 to 1) that counts as disturbed, beside significance: a
  // few misses from a neighbour that only crowds the cache do not join two SMs.
  double min_effect = 0;
  // Where > 0: the rises of one round that fall into two clusters this far apart are split at
  // the widest such gap, the upper cluster disturbed (see effect_cut in sm_groups.cpp).
  double min_gap = 0;
};

// One two-SM test: the reference, the SM tested against it, and what B did to A.
struct SmPairTest {
  int reference = 0;
  int sm = 0;
  double effect = 0;        // A's miss share with B less without
  double median_ratio = 1;  // A's median latency with B over without
  double p_value = 1;
  bool disturbed = false;
};

struct SmGroupsFound {
  std::vector<std::vector<int>> groups;  // the first SM of each group was its reference
  double worst_p = 0;                    // the largest p-value of a "disturbed" decision
  std::size_t decisions = 0;
  std::vector<SmPairTest> tests;
};

// The tests as evidence: [[reference, sm, effect, median ratio, disturbed], ...].
model::Json tests_json(const std::vector<SmPairTest>& tests);

SmGroupsFound group_sms_by_interference(Context& ctx, const SmGroupsSpec& spec);

// The rise of A's miss share a round's tests must reach: `min_effect`, or, where the rises fall
// into two clusters `min_gap` or more apart, the middle of the widest such gap above it (SMs
// that share the instance evict most of A; a neighbour that only crowds it, a part).
double effect_cut(std::vector<double> effects, double min_effect, double min_gap);

}  // namespace gputopo::discovery
