#include "fake_device.hpp"

namespace gputopo::test {
namespace {
using model::Attribute;

Attribute api(model::Json v, std::string unit = {}) {
  return Attribute::api(std::move(v), std::move(unit));
}
Attribute no_nvml(std::string unit = {}) {
  return Attribute::unavailable(
      model::Source::Api, std::move(unit),
      "NVML not available: libnvidia-ml.so.1: cannot open shared object file");
}
}  // namespace

device::DeviceInfo h100_like_info() {
  device::DeviceInfo d;
  d.index = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.global_memory_bytes = 85'029'158'912ULL;
  d.l2_bytes = 52'428'800;
  d.shared_per_block_bytes = 49'152;
  d.shared_per_block_optin_bytes = 232'448;
  d.shared_per_sm_bytes = 233'472;
  d.constant_bytes = 65'536;
  d.sm_clock_max_mhz = 1980;
  d.mem_clock_max_mhz = 2619;
  d.memory_bus_width_bits = 5120;
  d.general = {
      {"vendor", api("NVIDIA")},
      {"name", api(d.name)},
      {"architecture", Attribute::table("Hopper", "", "cc-table")},
      {"computeCapability", api("9.0")},
      {"uuid", api("GPU-2b4c5f0e-1c55-7a3d-1f4e-9ac0e1c5d7a2")},
      {"pciBusId", api("0000:19:00.0")},
      {"driverVersion", no_nvml()},
      {"driverCudaVersion", api("13.0")},
      {"runtimeVersion", api("13.0")},
      {"smClock", no_nvml("MHz")},
      {"smClockMax", api(1980, "MHz")},
      {"memoryClock", no_nvml("MHz")},
      {"memoryClockMax", api(2619, "MHz")},
      {"memoryBusWidth", api(5120, "bit")},
      {"memorySize", api(d.global_memory_bytes, "B")},
      {"ecc", api(true)},
      {"migMode", no_nvml()},
      {"powerLimit", no_nvml("W")},
      {"persistenceMode", no_nvml()},
  };
  d.compute = {
      {"smCount", api(132)},
      {"coresPerSm", Attribute::table(128, "", "cc-table")},
      {"warpSize", api(32)},
      {"maxThreadsPerBlock", api(1024)},
      {"maxThreadsPerSm", api(2048)},
      {"maxBlocksPerSm", api(32)},
      {"maxBlockDim", api(model::Json::array({1024, 1024, 64}))},
      {"registersPerBlock", api(65536)},
      {"registersPerSm", api(65536)},
      {"sharedMemoryPerBlock", api(49152, "B")},
      {"sharedMemoryPerBlockOptin", api(232448, "B")},
      {"sharedMemoryPerSm", api(233472, "B")},
      {"sharedMemoryReservedPerBlock", api(1024, "B")},
      {"l2Size", api(52428800, "B")},
      {"l2PersistingMax", api(34603008, "B")},
      {"constantMemory", api(65536, "B")},
      {"cooperativeLaunch", api(true)},
      {"clusterLaunch", api(true)},
      {"concurrentKernels", api(true)},
      {"asyncEngines", api(3)},
  };
  return d;
}

}  // namespace gputopo::test
