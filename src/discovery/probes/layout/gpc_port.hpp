#pragma once

#include <functional>
#include <vector>

#include "analysis/layout_inference.hpp"
#include "model/attribute.hpp"

namespace gputopo::discovery {

// Which GPC's path to the L2 each loose unit (SMs no cluster of 3 or more held) shares, from L2
// read rates of SM sets that do equal work (Device::read_rate). A unit of k SMs with a path of its
// own raises a GPC of n SMs by (n + k) / n; one that shares the GPC's port raises it at most to the
// port's rate, the median of the faster half of the GPCs alone. Each unit's ratios with every GPC
// are fitted under "shares GPC g" for each g and under "apart from all" (normal misfits with the
// larger of the repeats' noise and the residuals' RMS; a GPC whose two predictions lie within two
// sds cannot tell sharing from apart); it joins the GPC whose hypothesis holds 0.9 of the
// posterior, which is its confidence.
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
