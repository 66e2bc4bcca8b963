#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "model/fact.hpp"

namespace gputopo::model {

struct ComputeCapability {
  int major = 0;
  int minor = 0;
};

// What the driver knows about one device, as a backend found it: typed facts, nothing
// report-shaped. model/device_facts.hpp turns them into the report's device and compute sections
// (key names, units, order, and the values derived from them); a backend leaves a fact empty where
// it has no such thing. Probes read the plain values: `info.sm_count()` is the count, or 0.
struct DeviceInfo {
  int index = 0;
  std::string vendor = "NVIDIA";
  bool simulated = false;

  Fact<std::string> name;
  Fact<std::string> architecture;  // empty on NVIDIA: model's table names it from the capability
  Fact<ComputeCapability> compute_capability;
  Fact<std::string> simulator_preset;
  Fact<std::string> uuid;
  Fact<std::string> pci_bus_id;
  Fact<std::string> driver_version;
  Fact<std::string> driver_cuda_version;
  Fact<std::string> runtime_version;
  Fact<double> sm_clock_mhz;
  Fact<double> sm_clock_max_mhz;
  Fact<double> mem_clock_mhz;
  Fact<double> mem_clock_max_mhz;
  Fact<int> memory_bus_width_bits;
  Fact<std::uint64_t> global_memory_bytes;
  Fact<bool> rocm_smi;  // whether ROCm SMI could be loaded
  Fact<bool> ecc;
  Fact<bool> mig_enabled;
  Fact<double> power_limit_w;
  Fact<bool> persistence_mode;
  Fact<std::string> compute_mode;
  Fact<int> other_processes;
  Fact<bool> integrated;
  Fact<bool> multi_gpu_board;
  Fact<bool> kernel_exec_timeout;
  Fact<bool> mps_enabled;
  Fact<int> numa_id;
  Fact<int> host_numa_id;
  Fact<bool> unified_addressing;
  Fact<bool> managed_memory;
  Fact<bool> concurrent_managed_access;
  Fact<bool> pageable_memory_access;
  Fact<bool> can_map_host_memory;
  Fact<bool> host_native_atomics;
  Fact<bool> host_register;
  Fact<bool> memory_pools;
  Fact<bool> gpu_direct_rdma;

  Fact<int> sm_count;
  Fact<int> xcd_count;     // AMD: accelerator complex dies
  Fact<int> simds_per_cu;  // AMD
  Fact<int> cores_per_sm;  // empty on NVIDIA: model's table gives it from the capability
  Fact<int> warp_size;
  Fact<int> max_threads_per_block;
  Fact<int> max_threads_per_sm;
  Fact<int> max_blocks_per_sm;
  Fact<std::array<int, 3>> max_block_dim;
  Fact<std::array<int, 3>> max_grid_dim;
  Fact<int> registers_per_block;
  Fact<int> registers_per_sm;
  Fact<std::uint64_t> shared_per_block_bytes;
  Fact<std::uint64_t> shared_per_block_optin_bytes;
  Fact<std::uint64_t> shared_per_sm_bytes;
  Fact<std::uint64_t> shared_reserved_per_block_bytes;
  Fact<std::uint64_t> l2_bytes;
  Fact<std::uint64_t> l2_persisting_max_bytes;
  Fact<std::uint64_t> access_policy_max_window_bytes;
  Fact<std::uint64_t> mall_bytes;  // AMD: the memory-side cache (Infinity Cache, MALL)
  Fact<std::uint64_t> constant_bytes;
  Fact<bool> global_l1_cache;
  Fact<bool> local_l1_cache;
  Fact<bool> cooperative_launch;
  Fact<bool> cluster_launch;
  Fact<int> max_cluster_size;
  Fact<bool> concurrent_kernels;
  Fact<int> async_engines;
  Fact<bool> stream_priorities;
  Fact<bool> compute_preemption;
  Fact<int> mem_sync_domains;
  Fact<int> single_to_double_perf_ratio;
  Fact<std::uint64_t> texture_alignment;
  Fact<std::uint64_t> texture_pitch_alignment;
  Fact<std::uint64_t> surface_alignment;
  Fact<std::uint64_t> max_texture_1d_linear_width;
  Fact<std::uint64_t> max_pitch;
};

}  // namespace gputopo::model
