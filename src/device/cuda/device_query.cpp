#include "device/cuda/device_query.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "device/cuda/nvml.hpp"
#include "model/architecture.hpp"
#include "model/device_support.hpp"

namespace gputopo::device::cuda {
namespace {
using model::Attribute;
using model::AttributeList;
using model::Json;

constexpr const char* kUseSim = "use --sim PRESET to run on a simulated GPU";

std::string cuda_version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string cc_string(int major, int minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// Whole numbers stay integers in the JSON (1980, not 1980.0).
Json number(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9.0e15) return static_cast<std::int64_t>(v);
  return v;
}

Attribute with_method(Attribute a, std::string method) {
  a.method = std::move(method);
  return a;
}

// How a runtime attribute's integer reads in the report.
enum class Kind { Count, Bytes, Bool, KiloHertz, Bits };

std::string unit_of(Kind k) {
  switch (k) {
    case Kind::Bytes:
      return "B";
    case Kind::KiloHertz:
      return "MHz";
    case Kind::Bits:
      return "bit";
    case Kind::Count:
    case Kind::Bool:
      break;
  }
  return "";
}

struct RuntimeAttribute {
  const char* key;
  cudaDeviceAttr attr;
  const char* name;
  Kind kind;
};
#define GPUTOPO_ATTR(key, attr, kind) \
  RuntimeAttribute { key, attr, #attr, kind }

std::optional<int> read_attribute(int device, cudaDeviceAttr attr, std::string* why) {
  int v = 0;
  cudaError_t e = cudaDeviceGetAttribute(&v, attr, device);
  if (e == cudaSuccess) return v;
  cudaGetLastError();
  if (why) *why = std::string("the CUDA runtime gave no answer: ") + cudaGetErrorString(e);
  return std::nullopt;
}

Attribute runtime(int device, const RuntimeAttribute& ra) {
  std::string why;
  auto v = read_attribute(device, ra.attr, &why);
  if (!v)
    return with_method(Attribute::unavailable(model::Source::Api, unit_of(ra.kind), why), ra.name);
  Json value;
  switch (ra.kind) {
    case Kind::Bool:
      value = *v != 0;
      break;
    case Kind::KiloHertz:
      value = number(*v / 1000.0);
      break;
    case Kind::Count:
    case Kind::Bytes:
    case Kind::Bits:
      value = *v;
      break;
  }
  return with_method(Attribute::api(std::move(value), unit_of(ra.kind)), ra.name);
}

Attribute runtime_triple(int device, const RuntimeAttribute (&parts)[3], const char* method) {
  Json value = Json::array();
  for (const auto& p : parts) {
    std::string why;
    auto v = read_attribute(device, p.attr, &why);
    if (!v) return with_method(Attribute::unavailable(model::Source::Api, "", why), method);
    value.push_back(*v);
  }
  return with_method(Attribute::api(std::move(value)), method);
}

template <class T, class Convert>
Attribute from_nvml(const NvmlValue<T>& v, std::string unit, std::string method, Convert convert) {
  if (!v.value)
    return with_method(Attribute::unavailable(model::Source::Api, unit, v.reason), method);
  return with_method(Attribute::api(convert(*v.value), std::move(unit)), std::move(method));
}

template <class T>
Attribute from_nvml(const NvmlValue<T>& v, std::string unit, std::string method) {
  return from_nvml(v, std::move(unit), std::move(method), [](const T& x) { return Json(x); });
}

// The runtime's answer when it has one, NVML's otherwise.
Attribute prefer_runtime(Attribute from_runtime, Attribute from_nvml_value) {
  return from_runtime.available() ? from_runtime : from_nvml_value;
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

int get_or_zero(const AttributeList& list, std::string_view key) {
  const Attribute* a = model::find(list, key);
  return a && a->value.is_number_integer() ? a->value.get<int>() : 0;
}

double get_double_or_zero(const AttributeList& list, std::string_view key) {
  const Attribute* a = model::find(list, key);
  return a && a->value.is_number() ? a->value.get<double>() : 0.0;
}

// Vendor, name, architecture, compute capability, identifiers and versions.
void add_identity(AttributeList& g, const cudaDeviceProp& prop, const std::string& bus,
                  const Nvml& nvml) {
  auto facts = model::architecture_facts(prop.major, prop.minor);
  int driver = 0;
  int runtime_version = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime_version);
  g.emplace_back("vendor", Attribute::api("NVIDIA"));
  g.emplace_back("name", with_method(Attribute::api(prop.name), "cudaGetDeviceProperties"));
  g.emplace_back(
      "architecture",
      facts ? Attribute::table(std::string(facts->name), "",
                               std::string(model::kArchitectureTableMethod))
            : Attribute::unavailable(model::Source::Table, "",
                                     "compute capability " + cc_string(prop.major, prop.minor) +
                                         " is not in gputopo's architecture table"));
  g.emplace_back("computeCapability", with_method(Attribute::api(cc_string(prop.major, prop.minor)),
                                                  "cudaDevAttrComputeCapabilityMajor/Minor"));
  g.emplace_back("uuid",
                 with_method(Attribute::api(uuid_string(prop.uuid)), "cudaGetDeviceProperties"));
  g.emplace_back("pciBusId", with_method(Attribute::api(bus), "cudaDeviceGetPCIBusId"));
  g.emplace_back("driverVersion",
                 from_nvml(nvml.driver_version(), "", "nvmlSystemGetDriverVersion"));
  g.emplace_back("driverCudaVersion",
                 with_method(Attribute::api(cuda_version_string(driver)), "cudaDriverGetVersion"));
  g.emplace_back("runtimeVersion", with_method(Attribute::api(cuda_version_string(runtime_version)),
                                               "cudaRuntimeGetVersion"));
}

// SM and memory clocks, bus width and memory size.
void add_clocks_and_memory(AttributeList& g, int device, const cudaDeviceProp& prop,
                           const std::string& bus, const Nvml& nvml) {
  auto mhz = [](double v) { return number(v); };
  g.emplace_back("smClock", from_nvml(nvml.clock_mhz(bus, NvmlClock::Sm), "MHz",
                                      "nvmlDeviceGetClockInfo", mhz));
  g.emplace_back("smClockMax",
                 prefer_runtime(runtime(device, GPUTOPO_ATTR("smClockMax", cudaDevAttrClockRate,
                                                             Kind::KiloHertz)),
                                from_nvml(nvml.max_clock_mhz(bus, NvmlClock::Sm), "MHz",
                                          "nvmlDeviceGetMaxClockInfo", mhz)));
  g.emplace_back("memoryClock", from_nvml(nvml.clock_mhz(bus, NvmlClock::Memory), "MHz",
                                          "nvmlDeviceGetClockInfo", mhz));
  g.emplace_back(
      "memoryClockMax",
      prefer_runtime(runtime(device, GPUTOPO_ATTR("memoryClockMax", cudaDevAttrMemoryClockRate,
                                                  Kind::KiloHertz)),
                     from_nvml(nvml.max_clock_mhz(bus, NvmlClock::Memory), "MHz",
                               "nvmlDeviceGetMaxClockInfo", mhz)));
  g.emplace_back(
      "memoryBusWidth",
      runtime(device, GPUTOPO_ATTR("memoryBusWidth", cudaDevAttrGlobalMemoryBusWidth, Kind::Bits)));
  g.emplace_back("memorySize",
                 with_method(Attribute::api(static_cast<std::uint64_t>(prop.totalGlobalMem), "B"),
                             "cudaGetDeviceProperties"));
}

AttributeList general_attributes(int device, const cudaDeviceProp& prop, const std::string& bus) {
  const Nvml& nvml = Nvml::instance();
  auto mhz = [](double v) { return number(v); };
  std::string compute_mode_why;
  auto compute_mode = read_attribute(device, cudaDevAttrComputeMode, &compute_mode_why);

  AttributeList g;
  add_identity(g, prop, bus, nvml);
  add_clocks_and_memory(g, device, prop, bus, nvml);
  g.emplace_back(
      "ecc", prefer_runtime(runtime(device, GPUTOPO_ATTR("ecc", cudaDevAttrEccEnabled, Kind::Bool)),
                            from_nvml(nvml.ecc_enabled(bus), "", "nvmlDeviceGetEccMode")));
  g.emplace_back("migMode", from_nvml(nvml.mig_enabled(bus), "", "nvmlDeviceGetMigMode",
                                      [](bool on) { return Json(on ? "enabled" : "disabled"); }));
  g.emplace_back("powerLimit",
                 from_nvml(nvml.power_limit_w(bus), "W", "nvmlDeviceGetEnforcedPowerLimit", mhz));
  g.emplace_back("persistenceMode",
                 from_nvml(nvml.persistence_mode(bus), "", "nvmlDeviceGetPersistenceMode"));
  g.emplace_back(
      "computeMode",
      with_method(compute_mode ? Attribute::api(compute_mode_name(*compute_mode))
                               : Attribute::unavailable(model::Source::Api, "", compute_mode_why),
                  "cudaDevAttrComputeMode"));
  g.emplace_back("otherProcesses",
                 from_nvml(nvml.other_processes(bus), "", "nvmlDeviceGetComputeRunningProcesses"));

  static const RuntimeAttribute kMore[] = {
      GPUTOPO_ATTR("integrated", cudaDevAttrIntegrated, Kind::Bool),
      GPUTOPO_ATTR("multiGpuBoard", cudaDevAttrIsMultiGpuBoard, Kind::Bool),
      GPUTOPO_ATTR("kernelExecTimeout", cudaDevAttrKernelExecTimeout, Kind::Bool),
      GPUTOPO_ATTR("mpsEnabled", cudaDevAttrMpsEnabled, Kind::Bool),
      GPUTOPO_ATTR("numaId", cudaDevAttrNumaId, Kind::Count),
      GPUTOPO_ATTR("hostNumaId", cudaDevAttrHostNumaId, Kind::Count),
      GPUTOPO_ATTR("unifiedAddressing", cudaDevAttrUnifiedAddressing, Kind::Bool),
      GPUTOPO_ATTR("managedMemory", cudaDevAttrManagedMemory, Kind::Bool),
      GPUTOPO_ATTR("concurrentManagedAccess", cudaDevAttrConcurrentManagedAccess, Kind::Bool),
      GPUTOPO_ATTR("pageableMemoryAccess", cudaDevAttrPageableMemoryAccess, Kind::Bool),
      GPUTOPO_ATTR("canMapHostMemory", cudaDevAttrCanMapHostMemory, Kind::Bool),
      GPUTOPO_ATTR("hostNativeAtomics", cudaDevAttrHostNativeAtomicSupported, Kind::Bool),
      GPUTOPO_ATTR("hostRegister", cudaDevAttrHostRegisterSupported, Kind::Bool),
      GPUTOPO_ATTR("memoryPools", cudaDevAttrMemoryPoolsSupported, Kind::Bool),
      GPUTOPO_ATTR("gpuDirectRdma", cudaDevAttrGPUDirectRDMASupported, Kind::Bool),
  };
  for (const auto& ra : kMore) g.emplace_back(ra.key, runtime(device, ra));
  return g;
}

AttributeList compute_attributes(int device, const cudaDeviceProp& prop) {
  AttributeList c;
  c.emplace_back("smCount", runtime(device, GPUTOPO_ATTR("smCount", cudaDevAttrMultiProcessorCount,
                                                         Kind::Count)));
  auto facts = model::architecture_facts(prop.major, prop.minor);
  if (facts) {
    c.emplace_back("coresPerSm", Attribute::table(facts->fp32_cores_per_sm, "",
                                                  std::string(model::kArchitectureTableMethod)));
    Attribute total = Attribute::api(get_or_zero(c, "smCount") * facts->fp32_cores_per_sm);
    total.source = model::Source::Derived;
    total.method = "smCount * coresPerSm";
    c.emplace_back("cores", std::move(total));
  } else {
    std::string why = "compute capability " + cc_string(prop.major, prop.minor) +
                      " is not in gputopo's cores-per-SM table";
    c.emplace_back("coresPerSm", Attribute::unavailable(model::Source::Table, "", why));
    c.emplace_back("cores", Attribute::unavailable(model::Source::Derived, "", why));
  }
  static const RuntimeAttribute kLimits[] = {
      GPUTOPO_ATTR("warpSize", cudaDevAttrWarpSize, Kind::Count),
      GPUTOPO_ATTR("maxThreadsPerBlock", cudaDevAttrMaxThreadsPerBlock, Kind::Count),
      GPUTOPO_ATTR("maxThreadsPerSm", cudaDevAttrMaxThreadsPerMultiProcessor, Kind::Count),
      GPUTOPO_ATTR("maxBlocksPerSm", cudaDevAttrMaxBlocksPerMultiprocessor, Kind::Count),
  };
  for (const auto& ra : kLimits) c.emplace_back(ra.key, runtime(device, ra));
  static const RuntimeAttribute kBlockDim[3] = {
      GPUTOPO_ATTR("", cudaDevAttrMaxBlockDimX, Kind::Count),
      GPUTOPO_ATTR("", cudaDevAttrMaxBlockDimY, Kind::Count),
      GPUTOPO_ATTR("", cudaDevAttrMaxBlockDimZ, Kind::Count)};
  static const RuntimeAttribute kGridDim[3] = {
      GPUTOPO_ATTR("", cudaDevAttrMaxGridDimX, Kind::Count),
      GPUTOPO_ATTR("", cudaDevAttrMaxGridDimY, Kind::Count),
      GPUTOPO_ATTR("", cudaDevAttrMaxGridDimZ, Kind::Count)};
  c.emplace_back("maxBlockDim", runtime_triple(device, kBlockDim, "cudaDevAttrMaxBlockDimX/Y/Z"));
  c.emplace_back("maxGridDim", runtime_triple(device, kGridDim, "cudaDevAttrMaxGridDimX/Y/Z"));
  static const RuntimeAttribute kRest[] = {
      GPUTOPO_ATTR("registersPerBlock", cudaDevAttrMaxRegistersPerBlock, Kind::Count),
      GPUTOPO_ATTR("registersPerSm", cudaDevAttrMaxRegistersPerMultiprocessor, Kind::Count),
      GPUTOPO_ATTR("sharedMemoryPerBlock", cudaDevAttrMaxSharedMemoryPerBlock, Kind::Bytes),
      GPUTOPO_ATTR("sharedMemoryPerBlockOptin", cudaDevAttrMaxSharedMemoryPerBlockOptin,
                   Kind::Bytes),
      GPUTOPO_ATTR("sharedMemoryPerSm", cudaDevAttrMaxSharedMemoryPerMultiprocessor, Kind::Bytes),
      GPUTOPO_ATTR("sharedMemoryReservedPerBlock", cudaDevAttrReservedSharedMemoryPerBlock,
                   Kind::Bytes),
      GPUTOPO_ATTR("l2Size", cudaDevAttrL2CacheSize, Kind::Bytes),
      GPUTOPO_ATTR("l2PersistingMax", cudaDevAttrMaxPersistingL2CacheSize, Kind::Bytes),
      GPUTOPO_ATTR("accessPolicyMaxWindow", cudaDevAttrMaxAccessPolicyWindowSize, Kind::Bytes),
      GPUTOPO_ATTR("constantMemory", cudaDevAttrTotalConstantMemory, Kind::Bytes),
      GPUTOPO_ATTR("globalL1Cache", cudaDevAttrGlobalL1CacheSupported, Kind::Bool),
      GPUTOPO_ATTR("localL1Cache", cudaDevAttrLocalL1CacheSupported, Kind::Bool),
      GPUTOPO_ATTR("cooperativeLaunch", cudaDevAttrCooperativeLaunch, Kind::Bool),
      GPUTOPO_ATTR("clusterLaunch", cudaDevAttrClusterLaunch, Kind::Bool),
      GPUTOPO_ATTR("concurrentKernels", cudaDevAttrConcurrentKernels, Kind::Bool),
      GPUTOPO_ATTR("asyncEngines", cudaDevAttrAsyncEngineCount, Kind::Count),
      GPUTOPO_ATTR("streamPriorities", cudaDevAttrStreamPrioritiesSupported, Kind::Bool),
      GPUTOPO_ATTR("computePreemption", cudaDevAttrComputePreemptionSupported, Kind::Bool),
      GPUTOPO_ATTR("memSyncDomains", cudaDevAttrMemSyncDomainCount, Kind::Count),
      GPUTOPO_ATTR("singleToDoublePerfRatio", cudaDevAttrSingleToDoublePrecisionPerfRatio,
                   Kind::Count),
      GPUTOPO_ATTR("textureAlignment", cudaDevAttrTextureAlignment, Kind::Bytes),
      GPUTOPO_ATTR("texturePitchAlignment", cudaDevAttrTexturePitchAlignment, Kind::Bytes),
      GPUTOPO_ATTR("surfaceAlignment", cudaDevAttrSurfaceAlignment, Kind::Bytes),
      GPUTOPO_ATTR("maxTexture1DLinearWidth", cudaDevAttrMaxTexture1DLinearWidth, Kind::Count),
      GPUTOPO_ATTR("maxPitch", cudaDevAttrMaxPitch, Kind::Bytes),
  };
  for (const auto& ra : kRest) c.emplace_back(ra.key, runtime(device, ra));
  return c;
}

std::uint64_t get_u64_or_zero(const AttributeList& list, std::string_view key) {
  const Attribute* a = model::find(list, key);
  return a && a->value.is_number_integer() ? a->value.get<std::uint64_t>() : 0;
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
  const int count = device_count();
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
  DeviceInfo info;
  info.index = index;
  info.name = prop.name;
  info.vendor = "NVIDIA";
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.simulated = false;
  info.general = general_attributes(index, prop, bus);
  info.compute = compute_attributes(index, prop);

  info.sm_count = get_or_zero(info.compute, "smCount");
  info.warp_size = get_or_zero(info.compute, "warpSize");
  info.max_threads_per_block = get_or_zero(info.compute, "maxThreadsPerBlock");
  info.max_threads_per_sm = get_or_zero(info.compute, "maxThreadsPerSm");
  info.max_blocks_per_sm = get_or_zero(info.compute, "maxBlocksPerSm");
  info.global_memory_bytes = prop.totalGlobalMem;
  info.l2_bytes = get_u64_or_zero(info.compute, "l2Size");
  info.shared_per_block_bytes = get_u64_or_zero(info.compute, "sharedMemoryPerBlock");
  info.shared_per_block_optin_bytes = get_u64_or_zero(info.compute, "sharedMemoryPerBlockOptin");
  info.shared_per_sm_bytes = get_u64_or_zero(info.compute, "sharedMemoryPerSm");
  info.constant_bytes = get_u64_or_zero(info.compute, "constantMemory");
  info.sm_clock_max_mhz = get_double_or_zero(info.general, "smClockMax");
  info.mem_clock_max_mhz = get_double_or_zero(info.general, "memoryClockMax");
  info.memory_bus_width_bits = get_or_zero(info.general, "memoryBusWidth");
  return info;
}

}  // namespace gputopo::device::cuda
