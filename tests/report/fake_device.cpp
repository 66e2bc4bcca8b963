#include "fake_device.hpp"

namespace gputopo::test {
namespace {
template <class T>
model::Fact<T> no_nvml() {
  return model::Fact<T>::none(
      "NVML not available: libnvidia-ml.so.1: cannot open shared object file");
}
}  // namespace

device::DeviceInfo h100_like_info() {
  device::DeviceInfo d;
  d.index = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.compute_capability = model::ComputeCapability{9, 0};
  d.uuid = "GPU-2b4c5f0e-1c55-7a3d-1f4e-9ac0e1c5d7a2";
  d.pci_bus_id = "0000:19:00.0";
  d.driver_version = no_nvml<std::string>();
  d.driver_cuda_version = "13.0";
  d.runtime_version = "13.0";
  d.sm_clock_mhz = no_nvml<double>();
  d.sm_clock_max_mhz = 1980;
  d.mem_clock_mhz = no_nvml<double>();
  d.mem_clock_max_mhz = 2619;
  d.memory_bus_width_bits = 5120;
  d.global_memory_bytes = 85'029'158'912ULL;
  d.ecc = true;
  d.mig_enabled = no_nvml<bool>();
  d.power_limit_w = no_nvml<double>();
  d.persistence_mode = no_nvml<bool>();

  d.sm_count = 132;
  d.warp_size = 32;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.max_block_dim = std::array<int, 3>{1024, 1024, 64};
  d.registers_per_block = 65536;
  d.registers_per_sm = 65536;
  d.shared_per_block_bytes = 49'152;
  d.shared_per_block_optin_bytes = 232'448;
  d.shared_per_sm_bytes = 233'472;
  d.shared_reserved_per_block_bytes = 1024;
  d.l2_bytes = 52'428'800;
  d.l2_persisting_max_bytes = 34'603'008;
  d.constant_bytes = 65'536;
  d.cooperative_launch = true;
  d.cluster_launch = true;
  d.concurrent_kernels = true;
  d.async_engines = 3;
  return d;
}

}  // namespace gputopo::test
