#pragma once

#include <vector>

#include "device/sim/config.hpp"

namespace gputopo::device::sim {

// Where each SM sits: TPC t holds SMs t*sms_per_tpc.., and TPCs are dealt to GPCs round-robin,
// skipping GPCs that are full (this reproduces the H100's GPC groups in DESIGN.md).
struct Topology {
  std::vector<int> gpc_of_sm;
  std::vector<std::vector<int>> gpc_sms;  // SMs of each GPC, ascending
  // Where clusters are placed: each GPC's SMs but those of its lone TPCs, then each lone TPC.
  std::vector<std::vector<int>> cluster_units;
};

Topology build_topology(const LayoutSpec& layout, int sm_count);

// Groups of SMs that run one thread-block cluster of `cluster_size` blocks each, as many as fit
// at once (the occupancy API's answer is their number): a cluster stays inside one cluster unit
// and takes whole TPCs first. Empty when clusters are unsupported or too large.
std::vector<std::vector<int>> cluster_groups(const LayoutSpec& layout, const Topology& topology,
                                             int cluster_size);

}  // namespace gputopo::device::sim
