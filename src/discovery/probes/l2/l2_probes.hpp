#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/info.hpp"
#include "discovery/probe.hpp"
#include "discovery/target.hpp"

// The L2 probes. Each kind lives in its own file; the L2 fetch granularity reuses the L1-family
// fetch probe, which works on any target.
namespace gputopo::discovery {

// The L2 as a chase target: L2-only loads.
Target l2_target();

// Registers the L2 probes (l2_probes.cpp).
void add_l2_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo& info);

// L2 size from the API; near->far step by a size search at fetch-granularity stride -> segment
// size aligned to the nearest 1/n of the API size, segment count n (l2_segment_probe.cpp).
std::unique_ptr<Probe> make_l2_segment_probe();
// Stride sweep over 1.5 segments at strides just past powers of two -> line size
// (l2_line_probe.cpp).
std::unique_ptr<Probe> make_l2_line_probe();
// Far->DRAM step by a size search at line stride -> the L2 capacity one SM reaches, as the
// cross-check of the API size (l2_capacity_probe.cpp).
std::unique_ptr<Probe> make_l2_capacity_probe();
// Near and far hit latency from chases inside one segment and past it, miss penalty against the
// device-memory latency (l2_latency_probe.cpp).
std::unique_ptr<Probe> make_l2_latency_probe();
// Near-hit latency on every SM, one request per SM (l2_sm_latency_probe.cpp).
std::unique_ptr<Probe> make_l2_sm_latency_probe();
// Read and write bandwidth of a buffer inside L2 (l2_bandwidth_probe.cpp).
std::unique_ptr<Probe> make_l2_bandwidth_probe();

}  // namespace gputopo::discovery
