#include "device/sim/sim_info.hpp"

#include <fmt/format.h>

namespace gputopo::device::sim {
namespace {
using model::Attribute;
constexpr const char* kNotSimulated = "the simulated GPU has none";
constexpr const char* kPreset = "simulator preset";

// The device's general attributes. Keys and order follow the CUDA backend
// (device/cuda/device_query.cpp, docs/schema.md).
void put_general(const SimConfig& config, DeviceInfo& info) {
  const DeviceSpec& d = config.device;
  auto& g = info.general;
  g.emplace_back("vendor", Attribute::api(info.vendor));
  g.emplace_back("name", Attribute::api(d.name));
  g.emplace_back("architecture", Attribute::table(d.architecture, "", kPreset));
  g.emplace_back("computeCapability", Attribute::api(fmt::format("{}.{}", d.cc_major, d.cc_minor)));
  g.emplace_back("simulated", Attribute::api(true));
  g.emplace_back("simulatorPreset", Attribute::api(config.preset));
  for (const char* key :
       {"uuid", "pciBusId", "driverVersion", "driverCudaVersion", "runtimeVersion"})
    g.emplace_back(key, Attribute::unavailable(model::Source::Api, "", kNotSimulated));
  g.emplace_back("smClock", Attribute::api(d.sm_clock_max_mhz, "MHz"));
  g.emplace_back("smClockMax", Attribute::api(d.sm_clock_max_mhz, "MHz"));
  const auto known = [](double v, const char* unit) {
    return v > 0 ? Attribute::api(v, unit)
                 : Attribute::unavailable(model::Source::Api, unit, "the preset does not say");
  };
  g.emplace_back("memoryClock", known(d.mem_clock_max_mhz, "MHz"));
  g.emplace_back("memoryClockMax", known(d.mem_clock_max_mhz, "MHz"));
  g.emplace_back("memoryBusWidth", d.memory_bus_width_bits > 0
                                       ? Attribute::api(d.memory_bus_width_bits, "bit")
                                       : Attribute::unavailable(model::Source::Api, "bit",
                                                                "the preset does not say"));
  g.emplace_back("memorySize", Attribute::api(d.global_memory_bytes, "B"));
  for (const char* key : {"ecc", "migMode", "powerLimit", "persistenceMode", "computeMode"})
    g.emplace_back(key, Attribute::unavailable(model::Source::Api, "", kNotSimulated));
  g.emplace_back("otherProcesses", Attribute::api(0));
}

void put_compute(const SimConfig& config, DeviceInfo& info) {
  const DeviceSpec& d = config.device;
  auto& c = info.compute;
  c.emplace_back("smCount", Attribute::api(d.sm_count));
  if (d.xcd_count > 0) {
    c.emplace_back("xcdCount", Attribute::api(d.xcd_count));
    Attribute per_xcd = Attribute::api(d.sm_count / d.xcd_count);
    per_xcd.source = model::Source::Derived;
    per_xcd.method = "smCount / xcdCount";
    c.emplace_back("cusPerXcd", std::move(per_xcd));
  }
  if (d.simds_per_cu > 0)
    c.emplace_back("simdsPerCu", Attribute::table(d.simds_per_cu, "", kPreset));
  c.emplace_back("coresPerSm", Attribute::table(d.cores_per_sm, "", kPreset));
  Attribute cores = Attribute::api(d.sm_count * d.cores_per_sm);
  cores.source = model::Source::Derived;
  cores.method = "smCount * coresPerSm";
  c.emplace_back("cores", std::move(cores));
  c.emplace_back("warpSize", Attribute::api(d.warp_size));
  c.emplace_back("maxThreadsPerBlock", Attribute::api(d.max_threads_per_block));
  c.emplace_back("maxThreadsPerSm", Attribute::api(d.max_threads_per_sm));
  c.emplace_back("maxBlocksPerSm", Attribute::api(d.max_blocks_per_sm));
  c.emplace_back("registersPerBlock", Attribute::api(d.registers_per_block));
  c.emplace_back("registersPerSm", Attribute::api(d.registers_per_sm));
  c.emplace_back("sharedMemoryPerBlock", Attribute::api(d.shared_per_block_bytes, "B"));
  c.emplace_back("sharedMemoryPerBlockOptin", Attribute::api(d.shared_per_block_optin_bytes, "B"));
  c.emplace_back("sharedMemoryPerSm", Attribute::api(d.shared_per_sm_bytes, "B"));
  c.emplace_back("sharedMemoryReservedPerBlock",
                 Attribute::api(d.shared_reserved_per_block_bytes, "B"));
  c.emplace_back("l2Size", Attribute::api(info.l2_bytes, "B"));
  if (info.mall_bytes > 0) c.emplace_back("mallSize", Attribute::api(info.mall_bytes, "B"));
  c.emplace_back("constantMemory", Attribute::api(d.constant_bytes, "B"));
  c.emplace_back("clusterLaunch", Attribute::api(config.layout.max_cluster_size > 0));
  c.emplace_back("maxClusterSize", Attribute::api(config.layout.max_cluster_size));
}

}  // namespace

DeviceInfo make_info(const SimConfig& config) {
  const DeviceSpec& d = config.device;
  DeviceInfo info;
  info.index = 0;
  info.name = d.name;
  info.vendor = d.vendor;
  info.cc_major = d.cc_major;
  info.cc_minor = d.cc_minor;
  info.simulated = true;
  info.sm_count = d.sm_count;
  info.warp_size = d.warp_size;
  info.max_threads_per_block = d.max_threads_per_block;
  info.max_threads_per_sm = d.max_threads_per_sm;
  info.max_blocks_per_sm = d.max_blocks_per_sm;
  info.global_memory_bytes = d.global_memory_bytes;
  info.l2_bytes = config.l2_api_bytes();
  info.mall_bytes = config.mall ? config.mall->geometry.size_bytes : 0;
  info.shared_per_block_bytes = d.shared_per_block_bytes;
  info.shared_per_block_optin_bytes = d.shared_per_block_optin_bytes;
  info.shared_per_sm_bytes = d.shared_per_sm_bytes;
  info.constant_bytes = d.constant_bytes;
  info.sm_clock_max_mhz = d.sm_clock_max_mhz;
  info.mem_clock_max_mhz = d.mem_clock_max_mhz;
  info.memory_bus_width_bits = d.memory_bus_width_bits;

  put_general(config, info);
  put_compute(config, info);
  return info;
}

}  // namespace gputopo::device::sim
