#include "device/cuda/device_query.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <future>
#include <optional>
#include <string>
#include <type_traits>

#include "device/cuda/nvml.hpp"
#include "device/startup_trace.hpp"
#include "model/device_support.hpp"

namespace gputopo::device::cuda {
namespace {
using model::Fact;

constexpr const char* kUseSim = "use --sim PRESET to run on a simulated GPU";

std::string cuda_version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::optional<int> read_attribute(int device, cudaDeviceAttr attr, std::string* why) {
  int v = 0;
  cudaError_t e = cudaDeviceGetAttribute(&v, attr, device);
  if (e == cudaSuccess) return v;
  cudaGetLastError();
  if (why) *why = std::string("the CUDA runtime gave no answer: ") + cudaGetErrorString(e);
  return std::nullopt;
}

// A runtime attribute's integer as the fact's type: flags as booleans, clocks from kHz to MHz.
template <class T>
Fact<T> runtime(int device, cudaDeviceAttr attr, const char* name) {
  std::string why;
  const auto v = read_attribute(device, attr, &why);
  if (!v) return Fact<T>::none(why, name);
  if constexpr (std::is_same_v<T, bool>)
    return Fact<T>(*v != 0, name);
  else if constexpr (std::is_same_v<T, double>)
    return Fact<T>(*v / 1000.0, name);
  else
    return Fact<T>(static_cast<T>(*v), name);
}
#define GPUTOPO_RUNTIME(T, attr) runtime<T>(device, attr, #attr)

Fact<std::array<int, 3>> runtime_triple(int device, const std::array<cudaDeviceAttr, 3>& parts,
                                        const char* method) {
  std::array<int, 3> value{};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string why;
    const auto v = read_attribute(device, parts[i], &why);
    if (!v) return Fact<std::array<int, 3>>::none(why, method);
    value[i] = *v;
  }
  return {value, method};
}

template <class T>
Fact<T> from_nvml(const NvmlValue<T>& v, const char* method) {
  return v.value ? Fact<T>(*v.value, method) : Fact<T>::none(v.reason, method);
}

// The runtime's answer when it has one, NVML's otherwise.
template <class T>
Fact<T> prefer_runtime(Fact<T> from_runtime, Fact<T> from_nvml_value) {
  return from_runtime.known() ? from_runtime : from_nvml_value;
}

std::string uuid_string(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char s[64];
  std::snprintf(s, sizeof s,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return s;
}

std::string compute_mode_name(int mode) {
  switch (mode) {
    case cudaComputeModeDefault:
      return "default";
    case cudaComputeModeProhibited:
      return "prohibited";
    case cudaComputeModeExclusiveProcess:
      return "exclusive process";
    default:
      return "mode " + std::to_string(mode);
  }
}

std::string pci_bus_id(int device) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof id, device) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  return id;
}

// Name, capability, identifiers and versions.
void read_identity(DeviceInfo& info, const cudaDeviceProp& prop, const std::string& bus,
                   const Nvml& nvml) {
  int driver = 0;
  int runtime_version = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime_version);
  info.name = Fact<std::string>(prop.name, "cudaGetDeviceProperties");
  info.compute_capability = Fact<model::ComputeCapability>(
      {prop.major, prop.minor}, "cudaDevAttrComputeCapabilityMajor/Minor");
  info.uuid = Fact<std::string>(uuid_string(prop.uuid), "cudaGetDeviceProperties");
  info.pci_bus_id = Fact<std::string>(bus, "cudaDeviceGetPCIBusId");
  info.driver_version = from_nvml(nvml.driver_version(), "nvmlSystemGetDriverVersion");
  info.driver_cuda_version = Fact<std::string>(cuda_version_string(driver), "cudaDriverGetVersion");
  info.runtime_version =
      Fact<std::string>(cuda_version_string(runtime_version), "cudaRuntimeGetVersion");
}

// Clocks, memory, and the state of the card (ECC, MIG, power, other processes).
void read_clocks_memory_state(DeviceInfo& info, int device, const cudaDeviceProp& prop,
                              const std::string& bus, const Nvml& nvml) {
  info.sm_clock_mhz = from_nvml(nvml.clock_mhz(bus, NvmlClock::Sm), "nvmlDeviceGetClockInfo");
  info.sm_clock_max_mhz = prefer_runtime(
      GPUTOPO_RUNTIME(double, cudaDevAttrClockRate),
      from_nvml(nvml.max_clock_mhz(bus, NvmlClock::Sm), "nvmlDeviceGetMaxClockInfo"));
  info.mem_clock_mhz = from_nvml(nvml.clock_mhz(bus, NvmlClock::Memory), "nvmlDeviceGetClockInfo");
  info.mem_clock_max_mhz = prefer_runtime(
      GPUTOPO_RUNTIME(double, cudaDevAttrMemoryClockRate),
      from_nvml(nvml.max_clock_mhz(bus, NvmlClock::Memory), "nvmlDeviceGetMaxClockInfo"));
  info.memory_bus_width_bits = GPUTOPO_RUNTIME(int, cudaDevAttrGlobalMemoryBusWidth);
  info.global_memory_bytes = Fact<std::uint64_t>(prop.totalGlobalMem, "cudaGetDeviceProperties");
  info.ecc = prefer_runtime(GPUTOPO_RUNTIME(bool, cudaDevAttrEccEnabled),
                            from_nvml(nvml.ecc_enabled(bus), "nvmlDeviceGetEccMode"));
  info.mig_enabled = from_nvml(nvml.mig_enabled(bus), "nvmlDeviceGetMigMode");
  info.power_limit_w = from_nvml(nvml.power_limit_w(bus), "nvmlDeviceGetEnforcedPowerLimit");
  info.persistence_mode = from_nvml(nvml.persistence_mode(bus), "nvmlDeviceGetPersistenceMode");
  std::string why;
  const auto mode = read_attribute(device, cudaDevAttrComputeMode, &why);
  info.compute_mode = mode ? Fact<std::string>(compute_mode_name(*mode), "cudaDevAttrComputeMode")
                           : Fact<std::string>::none(why, "cudaDevAttrComputeMode");
  info.other_processes =
      from_nvml(nvml.other_processes(bus), "nvmlDeviceGetComputeRunningProcesses");
}

void read_host_and_memory_features(DeviceInfo& info, int device) {
  info.integrated = GPUTOPO_RUNTIME(bool, cudaDevAttrIntegrated);
  info.multi_gpu_board = GPUTOPO_RUNTIME(bool, cudaDevAttrIsMultiGpuBoard);
  info.kernel_exec_timeout = GPUTOPO_RUNTIME(bool, cudaDevAttrKernelExecTimeout);
  info.mps_enabled = GPUTOPO_RUNTIME(bool, cudaDevAttrMpsEnabled);
  info.numa_id = GPUTOPO_RUNTIME(int, cudaDevAttrNumaId);
  info.host_numa_id = GPUTOPO_RUNTIME(int, cudaDevAttrHostNumaId);
  info.unified_addressing = GPUTOPO_RUNTIME(bool, cudaDevAttrUnifiedAddressing);
  info.managed_memory = GPUTOPO_RUNTIME(bool, cudaDevAttrManagedMemory);
  info.concurrent_managed_access = GPUTOPO_RUNTIME(bool, cudaDevAttrConcurrentManagedAccess);
  info.pageable_memory_access = GPUTOPO_RUNTIME(bool, cudaDevAttrPageableMemoryAccess);
  info.can_map_host_memory = GPUTOPO_RUNTIME(bool, cudaDevAttrCanMapHostMemory);
  info.host_native_atomics = GPUTOPO_RUNTIME(bool, cudaDevAttrHostNativeAtomicSupported);
  info.host_register = GPUTOPO_RUNTIME(bool, cudaDevAttrHostRegisterSupported);
  info.memory_pools = GPUTOPO_RUNTIME(bool, cudaDevAttrMemoryPoolsSupported);
  info.gpu_direct_rdma = GPUTOPO_RUNTIME(bool, cudaDevAttrGPUDirectRDMASupported);
}

// SMs, residency limits and memory sizes.
void read_compute_limits(DeviceInfo& info, int device) {
  using u64 = std::uint64_t;
  info.sm_count = GPUTOPO_RUNTIME(int, cudaDevAttrMultiProcessorCount);
  info.warp_size = GPUTOPO_RUNTIME(int, cudaDevAttrWarpSize);
  info.max_threads_per_block = GPUTOPO_RUNTIME(int, cudaDevAttrMaxThreadsPerBlock);
  info.max_threads_per_sm = GPUTOPO_RUNTIME(int, cudaDevAttrMaxThreadsPerMultiProcessor);
  info.max_blocks_per_sm = GPUTOPO_RUNTIME(int, cudaDevAttrMaxBlocksPerMultiprocessor);
  info.max_block_dim = runtime_triple(
      device, {cudaDevAttrMaxBlockDimX, cudaDevAttrMaxBlockDimY, cudaDevAttrMaxBlockDimZ},
      "cudaDevAttrMaxBlockDimX/Y/Z");
  info.max_grid_dim = runtime_triple(
      device, {cudaDevAttrMaxGridDimX, cudaDevAttrMaxGridDimY, cudaDevAttrMaxGridDimZ},
      "cudaDevAttrMaxGridDimX/Y/Z");
  info.registers_per_block = GPUTOPO_RUNTIME(int, cudaDevAttrMaxRegistersPerBlock);
  info.registers_per_sm = GPUTOPO_RUNTIME(int, cudaDevAttrMaxRegistersPerMultiprocessor);
  info.shared_per_block_bytes = GPUTOPO_RUNTIME(u64, cudaDevAttrMaxSharedMemoryPerBlock);
  info.shared_per_block_optin_bytes = GPUTOPO_RUNTIME(u64, cudaDevAttrMaxSharedMemoryPerBlockOptin);
  info.shared_per_sm_bytes = GPUTOPO_RUNTIME(u64, cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  info.shared_reserved_per_block_bytes =
      GPUTOPO_RUNTIME(u64, cudaDevAttrReservedSharedMemoryPerBlock);
  info.l2_bytes = GPUTOPO_RUNTIME(u64, cudaDevAttrL2CacheSize);
  info.l2_persisting_max_bytes = GPUTOPO_RUNTIME(u64, cudaDevAttrMaxPersistingL2CacheSize);
  info.access_policy_max_window_bytes = GPUTOPO_RUNTIME(u64, cudaDevAttrMaxAccessPolicyWindowSize);
  info.constant_bytes = GPUTOPO_RUNTIME(u64, cudaDevAttrTotalConstantMemory);
}

void read_launch_features(DeviceInfo& info, int device) {
  using u64 = std::uint64_t;
  info.global_l1_cache = GPUTOPO_RUNTIME(bool, cudaDevAttrGlobalL1CacheSupported);
  info.local_l1_cache = GPUTOPO_RUNTIME(bool, cudaDevAttrLocalL1CacheSupported);
  info.cooperative_launch = GPUTOPO_RUNTIME(bool, cudaDevAttrCooperativeLaunch);
  info.cluster_launch = GPUTOPO_RUNTIME(bool, cudaDevAttrClusterLaunch);
  info.concurrent_kernels = GPUTOPO_RUNTIME(bool, cudaDevAttrConcurrentKernels);
  info.async_engines = GPUTOPO_RUNTIME(int, cudaDevAttrAsyncEngineCount);
  info.stream_priorities = GPUTOPO_RUNTIME(bool, cudaDevAttrStreamPrioritiesSupported);
  info.compute_preemption = GPUTOPO_RUNTIME(bool, cudaDevAttrComputePreemptionSupported);
  info.mem_sync_domains = GPUTOPO_RUNTIME(int, cudaDevAttrMemSyncDomainCount);
  info.single_to_double_perf_ratio =
      GPUTOPO_RUNTIME(int, cudaDevAttrSingleToDoublePrecisionPerfRatio);
  info.texture_alignment = GPUTOPO_RUNTIME(u64, cudaDevAttrTextureAlignment);
  info.texture_pitch_alignment = GPUTOPO_RUNTIME(u64, cudaDevAttrTexturePitchAlignment);
  info.surface_alignment = GPUTOPO_RUNTIME(u64, cudaDevAttrSurfaceAlignment);
  info.max_texture_1d_linear_width = GPUTOPO_RUNTIME(u64, cudaDevAttrMaxTexture1DLinearWidth);
  info.max_pitch = GPUTOPO_RUNTIME(u64, cudaDevAttrMaxPitch);
}

}  // namespace

int device_count() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n > 0) return n;
  cudaGetLastError();
  if (e == cudaSuccess || e == cudaErrorNoDevice)
    throw Error(Error::Kind::NoDevice,
                std::string("no CUDA GPU found: the NVIDIA driver sees none; ") + kUseSim);
  if (e == cudaErrorInsufficientDriver) {
    if (void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL); lib == nullptr)
      throw Error(Error::Kind::NoDriver,
                  std::string("no NVIDIA driver: libcuda.so.1 cannot be loaded; install the "
                              "NVIDIA driver, or ") +
                      kUseSim);
    else
      dlclose(lib);
    int driver = 0;
    int runtime_version = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime_version);
    throw Error(Error::Kind::NoDriver,
                "the NVIDIA driver supports CUDA " + cuda_version_string(driver) +
                    " but this gputopo needs CUDA " + cuda_version_string(runtime_version) +
                    ": update the driver, or " + kUseSim);
  }
  if (e == cudaErrorStubLibrary)
    throw Error(Error::Kind::NoDriver,
                std::string("libcuda.so.1 is the CUDA toolkit's stub, not a driver: install the "
                            "NVIDIA driver, or ") +
                    kUseSim);
  throw Error(Error::Kind::NoDriver, std::string("CUDA cannot start: ") + cudaGetErrorString(e) +
                                         "; check the driver with nvidia-smi, or " + kUseSim);
}

DeviceInfo query_device_info(int index) {
  // Loading NVML and starting the CUDA driver take 50-150 ms each: side by side.
  std::future<const Nvml*> nvml_loaded = std::async(std::launch::async, [] {
    const Nvml* nvml = &Nvml::instance();
    trace_startup("NVML loaded");
    return nvml;
  });
  const int count = device_count();
  trace_startup("CUDA driver started");
  if (index < 0 || index >= count)
    throw Error(Error::Kind::NoDevice, model::missing_gpu_message(index, count));
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, index); e != cudaSuccess) {
    cudaGetLastError();
    throw Error(Error::Kind::NoDriver, "cannot read the properties of GPU " +
                                           std::to_string(index) + ": " + cudaGetErrorString(e));
  }
  const ComputeCapability minimum = minimum_compute_capability();
  if (!model::compute_capability_at_least(prop.major, prop.minor, minimum.major, minimum.minor))
    throw Error(Error::Kind::Unsupported,
                model::unsupported_gpu_message(index, prop.name, prop.major, prop.minor,
                                               minimum.major, minimum.minor));

  const std::string bus = pci_bus_id(index);
  trace_startup("properties read");
  const Nvml& nvml = *nvml_loaded.get();
  DeviceInfo info;
  info.index = index;
  info.vendor = "NVIDIA";
  info.simulated = false;
  read_identity(info, prop, bus, nvml);
  read_clocks_memory_state(info, index, prop, bus, nvml);
  read_host_and_memory_features(info, index);
  read_compute_limits(info, index);
  read_launch_features(info, index);
  trace_startup("device queried");
  return info;
}

}  // namespace gputopo::device::cuda
