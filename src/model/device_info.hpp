#pragma once

#include <cstdint>
#include <string>

#include "model/attribute.hpp"

namespace gputopo::model {

// What the driver knows about one device, as a backend found it. The typed fields are the ones
// probes rely on and are always filled by a backend that opened a device; `general` and `compute`
// are the driver's attributes in report order (every key documented in docs/schema.md),
// unavailable values included with their reason. model/info_report.hpp turns them into a report.
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
  // AMD: the memory-side cache (Infinity Cache, MALL) the driver reports; 0 where it reports none.
  std::uint64_t mall_bytes = 0;

  AttributeList general;
  AttributeList compute;
};

}  // namespace gputopo::model
