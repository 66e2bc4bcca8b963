#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/device.hpp"
#include "discovery/probe.hpp"

namespace gputopo::discovery {

// The TLB levels that loads into device memory go through (docs/discovery.md, "TLB").
void add_tlb_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo& info);
std::unique_ptr<Probe> make_tlb_probe();

}  // namespace gputopo::discovery
