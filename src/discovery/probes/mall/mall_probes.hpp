#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/info.hpp"
#include "discovery/probe.hpp"

// A memory-side cache between the L2 and device memory (AMD's Infinity Cache, "mall"): found by the
// L2's size search carried on past the L2, and timed like the L2.
namespace gputopo::discovery {

// Registers the memory-side cache's probes (mall_probes.cpp) on GPUs whose vendor builds one
// (AMD); after the L2's, before device memory's.
void add_mall_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo& info);

// The capacity step past the L2's: one SM's chase at the L2's fetch granularity (what an L2 miss
// brings in is what the memory-side cache holds) (mall_size_probe.cpp).
std::unique_ptr<Probe> make_mall_size_probe();
// The latency of a load that misses the L2 and hits the memory-side cache (mall_latency_probe.cpp).
std::unique_ptr<Probe> make_mall_latency_probe();

}  // namespace gputopo::discovery
