#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/info.hpp"
#include "discovery/probe.hpp"

// The compute layout: how SMs group into TPCs and GPCs.
namespace gputopo::discovery {

// Registers the layout probes (layout_probes.cpp).
void add_layout_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo& info);

// TPCs and GPCs from thread-block cluster co-residency and per-SM L2 latency (layout_probe.cpp).
std::unique_ptr<Probe> make_layout_probe();
// The L2 segment each SM loads through, by two-SM interference between one SM of each GPC
// (l2_segment_of_sm_probe.cpp).
std::unique_ptr<Probe> make_l2_segment_of_sm_probe();

}  // namespace gputopo::discovery
