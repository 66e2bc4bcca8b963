#include "device/sim/sim_info.hpp"

namespace gputopo::device::sim {
namespace {
using model::Fact;
constexpr const char* kNotSimulated = "the simulated GPU has none";
constexpr const char* kNotSaid = "the preset does not say";
constexpr const char* kPreset = "simulator preset";

template <class T>
Fact<T> said(T v) {
  return v > 0 ? Fact<T>(v) : Fact<T>::none(kNotSaid);
}

// Identity, clocks and memory; what only real hardware has is marked as such.
void put_general(const SimConfig& config, DeviceInfo& info) {
  const DeviceSpec& d = config.device;
  info.name = d.name;
  info.architecture = Fact<std::string>::table(d.architecture, kPreset);
  info.compute_capability = model::ComputeCapability{d.cc_major, d.cc_minor};
  info.simulator_preset = config.preset;
  for (auto* f : {&info.uuid, &info.pci_bus_id, &info.driver_version, &info.driver_cuda_version,
                  &info.runtime_version, &info.compute_mode})
    *f = Fact<std::string>::none(kNotSimulated);
  info.sm_clock_mhz = d.sm_clock_max_mhz;
  info.sm_clock_max_mhz = d.sm_clock_max_mhz;
  info.mem_clock_mhz = said(d.mem_clock_max_mhz);
  info.mem_clock_max_mhz = said(d.mem_clock_max_mhz);
  info.memory_bus_width_bits = said(d.memory_bus_width_bits);
  info.global_memory_bytes = d.global_memory_bytes;
  for (auto* f : {&info.ecc, &info.mig_enabled, &info.persistence_mode})
    *f = Fact<bool>::none(kNotSimulated);
  info.power_limit_w = Fact<double>::none(kNotSimulated);
  info.other_processes = 0;
}

void put_compute(const SimConfig& config, DeviceInfo& info) {
  const DeviceSpec& d = config.device;
  info.sm_count = d.sm_count;
  if (d.xcd_count > 0) info.xcd_count = d.xcd_count;
  if (d.simds_per_cu > 0) info.simds_per_cu = Fact<int>::table(d.simds_per_cu, kPreset);
  info.cores_per_sm = Fact<int>::table(d.cores_per_sm, kPreset);
  info.warp_size = d.warp_size;
  info.max_threads_per_block = d.max_threads_per_block;
  info.max_threads_per_sm = d.max_threads_per_sm;
  info.max_blocks_per_sm = d.max_blocks_per_sm;
  info.registers_per_block = d.registers_per_block;
  info.registers_per_sm = d.registers_per_sm;
  info.shared_per_block_bytes = d.shared_per_block_bytes;
  info.shared_per_block_optin_bytes = d.shared_per_block_optin_bytes;
  info.shared_per_sm_bytes = d.shared_per_sm_bytes;
  info.shared_reserved_per_block_bytes = d.shared_reserved_per_block_bytes;
  info.l2_bytes = config.l2_api_bytes();
  if (config.mall) info.mall_bytes = config.mall->geometry.size_bytes;
  info.constant_bytes = d.constant_bytes;
  info.cluster_launch = config.layout.max_cluster_size > 0;
  info.max_cluster_size = config.layout.max_cluster_size;
}

}  // namespace

DeviceInfo make_info(const SimConfig& config) {
  DeviceInfo info;
  info.index = 0;
  info.vendor = config.device.vendor;
  info.simulated = true;
  put_general(config, info);
  put_compute(config, info);
  return info;
}

}  // namespace gputopo::device::sim
