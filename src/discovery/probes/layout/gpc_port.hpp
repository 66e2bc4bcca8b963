#pragma once

#include <functional>
#include <vector>

#include "analysis/layout_inference.hpp"
#include "model/attribute.hpp"

namespace gputopo::discovery {

// Which GPC's path to the L2 each loose unit (SMs no cluster of 3 or more held) shares, from L2
// read rates of SM sets that do equal work (Device::read_rate). A GPC whose port bounds its rate
// reads as fast with a unit of its own added (the unit shares the port) as without, while a unit
// with a path of its own raises the rate by its share, (n + k) / n for a GPC of n SMs and a unit
// of k. A unit is placed where exactly one GPC's ratio lies below half-way between the two; its
// confidence is the weakest of its verdicts, each the normal probability that the ratio lies on
// its side of half-way, with the ratio's noise from the spread of the calls' repeats.
struct PortPlacement {
  std::vector<int> gpc_of_unit;    // index into the GPCs, -1: not placed
  std::vector<double> confidence;  // of each unit's placement; 0 where not placed
  model::Json evidence;
};

// One SM set's L2 read rate: the median of its repeats, and their range over the median.
struct SetRate {
  double gbps = 0;
  double relative_range = 0;
};

PortPlacement place_by_port(const analysis::SmGroups& gpcs, const analysis::SmGroups& units,
                            const std::function<SetRate(const std::vector<int>&)>& rate);

}  // namespace gputopo::discovery
