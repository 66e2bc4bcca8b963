#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/info.hpp"
#include "discovery/probe.hpp"

// The device-memory probes; they reach device memory through the L2 and use its sweeps.
namespace gputopo::discovery {

// Registers the device-memory probes (dram_probes.cpp); after the L2's.
void add_dram_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo& info);

// Device memory: size from the API, latency of L2 capacity misses (dram_latency_probe.cpp).
std::unique_ptr<Probe> make_dram_latency_probe();
// Read, write and copy bandwidth of a buffer far past the L2, and the theoretical peak
// (dram_bandwidth_probe.cpp).
std::unique_ptr<Probe> make_dram_bandwidth_probe();

}  // namespace gputopo::discovery
