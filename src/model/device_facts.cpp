#include "model/device_facts.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>

#include "model/architecture.hpp"

namespace gputopo::model {
namespace {

template <class T>
using Field = Fact<T> DeviceInfo::*;
using AnyField = std::variant<Field<std::string>, Field<bool>, Field<int>, Field<std::uint64_t>,
                              Field<double>, Field<ComputeCapability>, Field<std::array<int, 3>>>;
using Derive = Attribute (*)(const DeviceInfo&);

// How a boolean reads: a flag, or a mode that is on or off.
enum class Render { Plain, EnabledDisabled };

struct Row {
  DeviceKey key;
  std::optional<AnyField> field;  // none: the value is derived
  Derive derive = nullptr;        // none: the field as it is
  Render render = Render::Plain;
};

std::string cc_string(const ComputeCapability& cc) {
  return std::to_string(cc.major) + "." + std::to_string(cc.minor);
}

// Whole numbers stay integers in the JSON (1980, not 1980.0).
Json to_json_value(double v, Render) {
  if (std::floor(v) == v && std::fabs(v) < 9.0e15) return static_cast<std::int64_t>(v);
  return v;
}
Json to_json_value(bool v, Render r) {
  if (r == Render::EnabledDisabled) return v ? "enabled" : "disabled";
  return v;
}
Json to_json_value(const ComputeCapability& v, Render) { return cc_string(v); }
template <class T>
Json to_json_value(const T& v, Render) {
  return Json(v);
}

template <class T>
std::optional<T> from_json_value(const Json& j, Render r) {
  if constexpr (std::is_same_v<T, bool>) {
    if (r == Render::EnabledDisabled && j.is_string()) {
      if (j == "enabled") return true;
      if (j == "disabled") return false;
      return std::nullopt;
    }
    if (j.is_boolean()) return j.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (j.is_string()) return j.get<std::string>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (j.is_number()) return j.get<double>();
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  } else if constexpr (std::is_same_v<T, int>) {
    if (j.is_number_integer()) return j.get<int>();
  } else if constexpr (std::is_same_v<T, ComputeCapability>) {
    ComputeCapability cc;
    char dot = 0;
    std::istringstream in(j.is_string() ? j.get<std::string>() : "");
    if (in >> cc.major >> dot >> cc.minor && dot == '.') return cc;
  } else {
    if (j.is_array() && j.size() == 3 && j[0].is_number_integer() && j[1].is_number_integer() &&
        j[2].is_number_integer())
      return T{j[0].get<int>(), j[1].get<int>(), j[2].get<int>()};
  }
  return std::nullopt;
}

template <class T>
Attribute attribute_of(const Fact<T>& f, const DeviceKey& key, Render r) {
  const std::string unit(key.unit);
  Attribute a = f.value ? Attribute::api(to_json_value(*f.value, r), unit)
                        : Attribute::unavailable(f.source, unit, f.missing);
  a.source = f.source;
  a.method = f.method;
  return a;
}

template <class T>
Fact<T> fact_of(const Attribute& a, Render r, bool* fits) {
  Fact<T> f;
  f.source = a.source;
  f.method = a.method;
  if (!a.available()) {
    f.missing = a.reason.empty() ? "not recorded" : a.reason;
    return f;
  }
  f.value = from_json_value<T>(a.value, r);
  *fits = f.value.has_value();
  return f;
}

Attribute derived(Json value, std::string method) {
  Attribute a = Attribute::api(std::move(value));
  a.source = Source::Derived;
  a.method = std::move(method);
  if (a.value.is_number()) a.no_interval = kExactNoInterval;
  return a;
}

std::string not_in_table(const DeviceInfo& info, const char* table) {
  return "compute capability " + cc_string(info.compute_capability()) + " is not in gputopo's " +
         table + " table";
}

// NVIDIA's backend leaves these two to the compute-capability table; other backends give them.
bool from_cc_table(const DeviceInfo& info, bool reported) {
  return !reported && info.vendor == "NVIDIA";
}

Attribute architecture(const DeviceInfo& info) {
  if (!from_cc_table(info, info.architecture.reported()))
    return attribute_of(info.architecture, {"architecture", "", Section::General, ""},
                        Render::Plain);
  const auto cc = info.compute_capability();
  if (const auto facts = architecture_facts(cc.major, cc.minor))
    return Attribute::table(std::string(facts->name), "", std::string(kArchitectureTableMethod));
  return Attribute::unavailable(Source::Table, "", not_in_table(info, "architecture"));
}

Attribute cores_per_sm(const DeviceInfo& info) {
  if (!from_cc_table(info, info.cores_per_sm.reported()))
    return attribute_of(info.cores_per_sm, {"coresPerSm", "", Section::Compute, ""}, Render::Plain);
  const auto cc = info.compute_capability();
  if (const auto facts = architecture_facts(cc.major, cc.minor))
    return Attribute::table(facts->fp32_cores_per_sm, "", std::string(kArchitectureTableMethod));
  return Attribute::unavailable(Source::Table, "", not_in_table(info, "cores-per-SM"));
}

Attribute cores(const DeviceInfo& info) {
  const Attribute per_sm = cores_per_sm(info);
  if (!per_sm.available())
    return Attribute::unavailable(Source::Derived, "", per_sm.reason.empty() ? "" : per_sm.reason);
  return derived(info.sm_count() * per_sm.value.get<int>(), "smCount * coresPerSm");
}

Attribute cus_per_xcd(const DeviceInfo& info) {
  if (info.xcd_count() <= 0) return {};
  return derived(info.sm_count() / info.xcd_count(), "smCount / xcdCount");
}

Attribute simulated(const DeviceInfo& info) {
  return info.simulated ? Attribute::api(true) : Attribute{};
}

Attribute vendor(const DeviceInfo& info) { return Attribute::api(info.vendor); }

using D = DeviceInfo;
constexpr auto G = Section::General;
constexpr auto C = Section::Compute;

const std::array kRows{
    Row{{"vendor", "", G, "NVIDIA or AMD"}, std::nullopt, vendor},
    Row{{"name", "", G, "product name"}, &D::name},
    Row{{"architecture", "", G, "Kepler ... Blackwell, by compute capability"},
        &D::architecture,
        architecture},
    Row{{"computeCapability", "", G, "\"9.0\""}, &D::compute_capability},
    Row{{"simulated", "", G, "the device is the simulator"}, std::nullopt, simulated},
    Row{{"simulatorPreset", "", G, "the preset or file"}, &D::simulator_preset},
    Row{{"uuid", "", G, "as nvidia-smi prints it"}, &D::uuid},
    Row{{"pciBusId", "", G, "PCI domain, bus, device, function"}, &D::pci_bus_id},
    Row{{"driverVersion", "", G, "the driver's version"}, &D::driver_version},
    Row{{"driverCudaVersion", "", G, "the newest CUDA the driver supports"},
        &D::driver_cuda_version},
    Row{{"runtimeVersion", "", G, "the runtime gputopo was built with"}, &D::runtime_version},
    Row{{"smClock", "MHz", G, "current SM clock"}, &D::sm_clock_mhz},
    Row{{"smClockMax", "MHz", G, "peak SM clock"}, &D::sm_clock_max_mhz},
    Row{{"memoryClock", "MHz", G, "current memory clock"}, &D::mem_clock_mhz},
    Row{{"memoryClockMax", "MHz", G, "peak memory clock"}, &D::mem_clock_max_mhz},
    Row{{"memoryBusWidth", "bit", G, "global memory bus width"}, &D::memory_bus_width_bits},
    Row{{"memorySize", "B", G, "total device memory"}, &D::global_memory_bytes},
    Row{{"rocmSmi", "", G, "AMD: ROCm SMI could be loaded"}, &D::rocm_smi},
    Row{{"ecc", "", G, "ECC enabled"}, &D::ecc},
    Row{{"migMode", "", G, "enabled or disabled"},
        &D::mig_enabled,
        nullptr,
        Render::EnabledDisabled},
    Row{{"powerLimit", "W", G, "enforced power limit"}, &D::power_limit_w},
    Row{{"persistenceMode", "", G, "persistence mode on"}, &D::persistence_mode},
    Row{{"computeMode", "", G, "default, exclusive process, prohibited"}, &D::compute_mode},
    Row{{"otherProcesses", "", G, "processes on the GPU other than gputopo"}, &D::other_processes},
    Row{{"integrated", "", G, "flag"}, &D::integrated},
    Row{{"multiGpuBoard", "", G, "flag"}, &D::multi_gpu_board},
    Row{{"kernelExecTimeout", "", G, "flag"}, &D::kernel_exec_timeout},
    Row{{"mpsEnabled", "", G, "flag"}, &D::mps_enabled},
    Row{{"numaId", "", G, "NUMA node of the GPU memory (-1: none)"}, &D::numa_id},
    Row{{"hostNumaId", "", G, "the nearest host NUMA node (-1: none)"}, &D::host_numa_id},
    Row{{"unifiedAddressing", "", G, "memory capability"}, &D::unified_addressing},
    Row{{"managedMemory", "", G, "memory capability"}, &D::managed_memory},
    Row{{"concurrentManagedAccess", "", G, "memory capability"}, &D::concurrent_managed_access},
    Row{{"pageableMemoryAccess", "", G, "memory capability"}, &D::pageable_memory_access},
    Row{{"canMapHostMemory", "", G, "memory capability"}, &D::can_map_host_memory},
    Row{{"hostNativeAtomics", "", G, "memory capability"}, &D::host_native_atomics},
    Row{{"hostRegister", "", G, "memory capability"}, &D::host_register},
    Row{{"memoryPools", "", G, "memory capability"}, &D::memory_pools},
    Row{{"gpuDirectRdma", "", G, "memory capability"}, &D::gpu_direct_rdma},

    Row{{"smCount", "", C, "streaming multiprocessors (AMD: compute units)"}, &D::sm_count},
    Row{{"xcdCount", "", C, "AMD: accelerator complex dies"}, &D::xcd_count},
    Row{{"cusPerXcd", "", C, "smCount / xcdCount"}, std::nullopt, cus_per_xcd},
    Row{{"simdsPerCu", "", C, "AMD: SIMD units per CU"}, &D::simds_per_cu},
    Row{{"coresPerSm", "", C, "FP32 cores per SM"}, &D::cores_per_sm, cores_per_sm},
    Row{{"cores", "", C, "smCount * coresPerSm"}, std::nullopt, cores},
    Row{{"warpSize", "", C, "threads per warp"}, &D::warp_size},
    Row{{"maxThreadsPerBlock", "", C, "residency limit"}, &D::max_threads_per_block},
    Row{{"maxThreadsPerSm", "", C, "residency limit"}, &D::max_threads_per_sm},
    Row{{"maxBlocksPerSm", "", C, "residency limit"}, &D::max_blocks_per_sm},
    Row{{"maxBlockDim", "", C, "[x, y, z]"}, &D::max_block_dim},
    Row{{"maxGridDim", "", C, "[x, y, z]"}, &D::max_grid_dim},
    Row{{"registersPerBlock", "", C, "32-bit registers"}, &D::registers_per_block},
    Row{{"registersPerSm", "", C, "32-bit registers"}, &D::registers_per_sm},
    Row{{"sharedMemoryPerBlock", "B", C, "without opt-in"}, &D::shared_per_block_bytes},
    Row{{"sharedMemoryPerBlockOptin", "B", C, "with opt-in"}, &D::shared_per_block_optin_bytes},
    Row{{"sharedMemoryPerSm", "B", C, "per SM"}, &D::shared_per_sm_bytes},
    Row{{"sharedMemoryReservedPerBlock", "B", C, "reserved by the driver for each block"},
        &D::shared_reserved_per_block_bytes},
    Row{{"l2Size", "B", C, "L2 cache size"}, &D::l2_bytes},
    Row{{"l2PersistingMax", "B", C, "largest persisting-L2 set-aside"},
        &D::l2_persisting_max_bytes},
    Row{{"accessPolicyMaxWindow", "B", C, "largest access-policy window"},
        &D::access_policy_max_window_bytes},
    Row{{"mallSize", "B", C, "AMD: the memory-side cache"}, &D::mall_bytes},
    Row{{"constantMemory", "B", C, "__constant__ memory"}, &D::constant_bytes},
    Row{{"globalL1Cache", "", C, "globals cached in L1"}, &D::global_l1_cache},
    Row{{"localL1Cache", "", C, "locals cached in L1"}, &D::local_l1_cache},
    Row{{"cooperativeLaunch", "", C, "launch capability"}, &D::cooperative_launch},
    Row{{"clusterLaunch", "", C, "launch capability"}, &D::cluster_launch},
    Row{{"maxClusterSize", "", C, "largest thread-block cluster"}, &D::max_cluster_size},
    Row{{"concurrentKernels", "", C, "launch capability"}, &D::concurrent_kernels},
    Row{{"asyncEngines", "", C, "copy engines that overlap kernels"}, &D::async_engines},
    Row{{"streamPriorities", "", C, "launch capability"}, &D::stream_priorities},
    Row{{"computePreemption", "", C, "launch capability"}, &D::compute_preemption},
    Row{{"memSyncDomains", "", C, "memory synchronisation domains"}, &D::mem_sync_domains},
    Row{{"singleToDoublePerfRatio", "", C, "FP32 to FP64 throughput ratio"},
        &D::single_to_double_perf_ratio},
    Row{{"textureAlignment", "B", C, "alignment limit"}, &D::texture_alignment},
    Row{{"texturePitchAlignment", "B", C, "alignment limit"}, &D::texture_pitch_alignment},
    Row{{"surfaceAlignment", "B", C, "alignment limit"}, &D::surface_alignment},
    Row{{"maxTexture1DLinearWidth", "", C, "texels of a linear 1D texture"},
        &D::max_texture_1d_linear_width},
    Row{{"maxPitch", "B", C, "alignment limit"}, &D::max_pitch},
};

const std::array<DeviceKey, kRows.size()> kKeys = [] {
  std::array<DeviceKey, kRows.size()> keys{};
  for (std::size_t i = 0; i < kRows.size(); ++i) keys[i] = kRows[i].key;
  return keys;
}();

// The row's attribute; a default Attribute (no value, no reason) when it is left out.
Attribute attribute_of(const Row& row, const DeviceInfo& info) {
  if (row.derive) return row.derive(info);
  return std::visit(
      [&](auto member) {
        const auto& fact = info.*member;
        return fact.reported() ? attribute_of(fact, row.key, row.render) : Attribute{};
      },
      *row.field);
}

bool left_out(const Attribute& a) { return !a.available() && a.reason.empty(); }

}  // namespace

std::span<const DeviceKey> device_keys() { return kKeys; }

DeviceSections device_sections(const DeviceInfo& info) {
  DeviceSections s;
  for (const Row& row : kRows) {
    Attribute a = attribute_of(row, info);
    if (left_out(a)) continue;
    (row.key.section == Section::General ? s.general : s.compute)
        .emplace_back(std::string(row.key.name), std::move(a));
  }
  return s;
}

std::string read_device_sections(const AttributeList& general, const AttributeList& compute,
                                 DeviceInfo& info) {
  for (const Row& row : kRows) {
    if (!row.field) continue;
    const Attribute* a =
        find(row.key.section == Section::General ? general : compute, row.key.name);
    if (a == nullptr) continue;
    bool fits = true;
    std::visit(
        [&](auto member) {
          using F = std::remove_reference_t<decltype(info.*member)>;
          info.*member = fact_of<typename decltype(F::value)::value_type>(*a, row.render, &fits);
        },
        *row.field);
    if (!fits)
      return std::string(row.key.section == Section::General ? "general." : "compute.") +
             std::string(row.key.name) + ": the value " + a->value.dump() + " is of the wrong type";
  }
  return {};
}

}  // namespace gputopo::model
