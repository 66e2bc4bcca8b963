#pragma once

#include <cstdint>
#include <string>

#include "model/attribute.hpp"

namespace gputopo::device {

// The most SMs a simulated or recorded device may have (the largest GPUs have about 160): the
// discovery's work and memory grow faster than the SM count.
constexpr int kMaxSmCount = 256;

// What the driver knows about one device. The typed fields are the ones probes rely on and are
// always filled by a backend that opened a device; `general` and `compute` are the complete,
// ordered report (every key documented in docs/schema.md), unavailable values included with
// their reason.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string vendor = "NVIDIA";
  int cc_major = 0;
  int cc_minor = 0;
  bool simulated = false;

  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  std::uint64_t global_memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t shared_per_block_bytes = 0;
  std::uint64_t shared_per_block_optin_bytes = 0;
  std::uint64_t shared_per_sm_bytes = 0;
  std::uint64_t constant_bytes = 0;
  double sm_clock_max_mhz = 0;    // 0 when unknown
  double mem_clock_max_mhz = 0;   // 0 when unknown
  int memory_bus_width_bits = 0;  // 0 when unknown

  model::AttributeList general;
  model::AttributeList compute;
};

}  // namespace gputopo::device
