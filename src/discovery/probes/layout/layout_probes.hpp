#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/device_info.hpp"
#include "discovery/probe.hpp"

// The compute layout: how SMs group into TPCs and GPCs.
namespace gputopo::discovery {

// Registers the layout probe (layout_probes.cpp).
void add_layout_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo& info);

// TPCs and GPCs from thread-block cluster co-residency and per-SM L2 latency (layout_probe.cpp).
std::unique_ptr<Probe> make_layout_probe();

}  // namespace gputopo::discovery
