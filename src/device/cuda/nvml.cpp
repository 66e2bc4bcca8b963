#include "device/cuda/nvml.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>
#include <string>
#include <vector>

namespace gputopo::device::cuda {
// The few declarations of nvml.h this file needs (NVML's C ABI; the header is not installed here),
// in a named namespace because Nvml::Api's members use them.
namespace nvml_c {
using nvmlReturn_t = int;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlInsufficientSize = 7;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr unsigned kNvmlDriverVersionBufferSize = 80;
// nvmlProcessInfo_t as the _v2 and _v3 process queries fill it.
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
using ProcessQuery = nvmlReturn_t (*)(nvmlDevice_t, unsigned*, NvmlProcessInfo*);
// nvmlProcessUtilizationSample_t.
struct NvmlProcessSample {
  unsigned int pid;
  unsigned long long time_stamp;
  unsigned int sm_util;
  unsigned int mem_util;
  unsigned int enc_util;
  unsigned int dec_util;
};
constexpr nvmlReturn_t kNvmlNotFound = 6;  // no samples since the timestamp
// nvmlClocksEventReasons (formerly ThrottleReasons) that slow the SMs against the run's will.
struct NamedReason {
  unsigned long long bit;
  const char* name;
};
constexpr NamedReason kSlowdowns[] = {{0x8, "hardware slowdown"},
                                      {0x20, "software thermal slowdown"},
                                      {0x40, "hardware thermal slowdown"},
                                      {0x80, "hardware power brake"}};
constexpr int kNvmlMemoryErrorUncorrected = 1;
constexpr unsigned kNvmlNvlinkMaxLinks = 18;
constexpr int kNvlinkRemoteSwitch = 2;  // nvmlIntNvLinkDeviceType_t
// nvmlPciInfo_t.
struct NvmlPciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
}  // namespace nvml_c
using namespace nvml_c;

namespace {
// NVML_NVLINK_VERSION_1_0 .. 6_0 (codes 1-8) as NVLink generations.
int nvlink_generation(unsigned code) {
  constexpr int kGeneration[] = {0, 1, 2, 2, 3, 3, 4, 5, 6};
  return code < std::size(kGeneration) ? kGeneration[code] : 0;
}
bool same_bus(std::string a, std::string b) {
  for (auto* s : {&a, &b})
    for (char& c : *s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // NVML writes an 8-digit domain ("00000000:19:00.0"), CUDA a 4-digit one.
  const auto tail = [](const std::string& s) {
    return s.size() >= 12 ? s.substr(s.size() - 12) : s;
  };
  return tail(a) == tail(b);
}
constexpr int kNvmlVolatileEcc = 0;

template <class F>
bool load(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

int to_clock_type(NvmlClock c) { return c == NvmlClock::Sm ? kNvmlClockSm : kNvmlClockMem; }
}  // namespace

struct Nvml::Api {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*handle_by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  // Optional entry points: null where this NVML lacks them.
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock_info)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*enforced_power_limit)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*persistence_mode)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*ecc_mode)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned*, unsigned*) = nullptr;
  ProcessQuery compute_processes = nullptr;
  ProcessQuery graphics_processes = nullptr;
  nvmlReturn_t (*process_utilization)(nvmlDevice_t, NvmlProcessSample*, unsigned*,
                                      unsigned long long) = nullptr;
  nvmlReturn_t (*clock_events)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*total_ecc_errors)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
  nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*nvlink_version)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*nvlink_remote_pci)(nvmlDevice_t, unsigned, NvmlPciInfo*) = nullptr;
  nvmlReturn_t (*nvlink_remote_type)(nvmlDevice_t, unsigned, int*) = nullptr;

  std::string error(nvmlReturn_t r) const { return std::string("NVML: ") + error_string(r); }
};

Nvml::Nvml() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    why_ = std::string("NVML not available: ") + (e ? e : "libnvidia-ml.so.1 not found");
    return;
  }
  auto api = std::make_unique<Api>();
  api->lib = lib;
  if (!load(lib, "nvmlInit_v2", api->init) || !load(lib, "nvmlShutdown", api->shutdown) ||
      !load(lib, "nvmlErrorString", api->error_string) ||
      !load(lib, "nvmlDeviceGetHandleByPciBusId_v2", api->handle_by_pci) ||
      !load(lib, "nvmlSystemGetDriverVersion", api->driver_version)) {
    why_ = "NVML not available: libnvidia-ml.so.1 lacks nvmlInit_v2 or another basic entry point";
    dlclose(lib);
    return;
  }
  if (nvmlReturn_t r = api->init(); r != kNvmlSuccess) {
    why_ = "NVML not available: nvmlInit failed: " + api->error(r);
    dlclose(lib);
    return;
  }
  load(lib, "nvmlDeviceGetClockInfo", api->clock_info);
  load(lib, "nvmlDeviceGetMaxClockInfo", api->max_clock_info);
  load(lib, "nvmlDeviceGetEnforcedPowerLimit", api->enforced_power_limit);
  load(lib, "nvmlDeviceGetPersistenceMode", api->persistence_mode);
  load(lib, "nvmlDeviceGetEccMode", api->ecc_mode);
  load(lib, "nvmlDeviceGetMigMode", api->mig_mode);
  if (!load(lib, "nvmlDeviceGetComputeRunningProcesses_v3", api->compute_processes))
    load(lib, "nvmlDeviceGetComputeRunningProcesses_v2", api->compute_processes);
  if (!load(lib, "nvmlDeviceGetGraphicsRunningProcesses_v3", api->graphics_processes))
    load(lib, "nvmlDeviceGetGraphicsRunningProcesses_v2", api->graphics_processes);
  load(lib, "nvmlDeviceGetProcessUtilization", api->process_utilization);
  if (!load(lib, "nvmlDeviceGetCurrentClocksEventReasons", api->clock_events))
    load(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", api->clock_events);
  load(lib, "nvmlDeviceGetTotalEccErrors", api->total_ecc_errors);
  load(lib, "nvmlDeviceGetNvLinkState", api->nvlink_state);
  load(lib, "nvmlDeviceGetNvLinkVersion", api->nvlink_version);
  load(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2", api->nvlink_remote_pci);
  load(lib, "nvmlDeviceGetNvLinkRemoteDeviceType", api->nvlink_remote_type);
  api_ = std::move(api);
}

Nvml::~Nvml() {
  if (api_) {
    api_->shutdown();
    dlclose(api_->lib);
  }
}

const Nvml& Nvml::instance() {
  static const Nvml nvml;
  return nvml;
}

namespace {
// Resolves the device, then runs `query(handle)`; every failure becomes a reason.
template <class T, class Query>
NvmlValue<T> on_device(const Nvml::Api* api, const std::string& why_unavailable,
                       const std::string& pci_bus_id, bool entry_point_present, Query&& query) {
  if (api == nullptr) return NvmlValue<T>::fail(why_unavailable);
  if (!entry_point_present)
    return NvmlValue<T>::fail("not available: this NVML lacks the query (driver too old)");
  nvmlDevice_t device = nullptr;
  if (nvmlReturn_t r = api->handle_by_pci(pci_bus_id.c_str(), &device); r != kNvmlSuccess)
    return NvmlValue<T>::fail("NVML has no device at PCI bus id " + pci_bus_id + ": " +
                              api->error(r));
  return query(device);
}
}  // namespace

NvmlValue<std::string> Nvml::driver_version() const {
  if (!api_) return NvmlValue<std::string>::fail(why_);
  char buffer[kNvmlDriverVersionBufferSize] = {};
  if (nvmlReturn_t r = api_->driver_version(buffer, sizeof buffer); r != kNvmlSuccess)
    return NvmlValue<std::string>::fail(api_->error(r));
  return NvmlValue<std::string>::ok(buffer);
}

NvmlValue<double> Nvml::clock_mhz(const std::string& bus, NvmlClock clock) const {
  const Api* a = api_.get();
  return on_device<double>(a, why_, bus, a && a->clock_info, [&](nvmlDevice_t d) {
    unsigned mhz = 0;
    nvmlReturn_t r = a->clock_info(d, to_clock_type(clock), &mhz);
    return r == kNvmlSuccess ? NvmlValue<double>::ok(mhz) : NvmlValue<double>::fail(a->error(r));
  });
}

NvmlValue<double> Nvml::max_clock_mhz(const std::string& bus, NvmlClock clock) const {
  const Api* a = api_.get();
  return on_device<double>(a, why_, bus, a && a->max_clock_info, [&](nvmlDevice_t d) {
    unsigned mhz = 0;
    nvmlReturn_t r = a->max_clock_info(d, to_clock_type(clock), &mhz);
    return r == kNvmlSuccess ? NvmlValue<double>::ok(mhz) : NvmlValue<double>::fail(a->error(r));
  });
}

NvmlValue<double> Nvml::power_limit_w(const std::string& bus) const {
  const Api* a = api_.get();
  return on_device<double>(a, why_, bus, a && a->enforced_power_limit, [&](nvmlDevice_t d) {
    unsigned milliwatts = 0;
    nvmlReturn_t r = a->enforced_power_limit(d, &milliwatts);
    return r == kNvmlSuccess ? NvmlValue<double>::ok(milliwatts / 1000.0)
                             : NvmlValue<double>::fail(a->error(r));
  });
}

NvmlValue<bool> Nvml::persistence_mode(const std::string& bus) const {
  const Api* a = api_.get();
  return on_device<bool>(a, why_, bus, a && a->persistence_mode, [&](nvmlDevice_t d) {
    int state = 0;
    nvmlReturn_t r = a->persistence_mode(d, &state);
    return r == kNvmlSuccess ? NvmlValue<bool>::ok(state != 0) : NvmlValue<bool>::fail(a->error(r));
  });
}

NvmlValue<bool> Nvml::ecc_enabled(const std::string& bus) const {
  const Api* a = api_.get();
  return on_device<bool>(a, why_, bus, a && a->ecc_mode, [&](nvmlDevice_t d) {
    int current = 0;
    int pending = 0;
    nvmlReturn_t r = a->ecc_mode(d, &current, &pending);
    return r == kNvmlSuccess ? NvmlValue<bool>::ok(current != 0)
                             : NvmlValue<bool>::fail(a->error(r));
  });
}

NvmlValue<bool> Nvml::mig_enabled(const std::string& bus) const {
  const Api* a = api_.get();
  return on_device<bool>(a, why_, bus, a && a->mig_mode, [&](nvmlDevice_t d) {
    unsigned current = 0;
    unsigned pending = 0;
    nvmlReturn_t r = a->mig_mode(d, &current, &pending);
    return r == kNvmlSuccess ? NvmlValue<bool>::ok(current != 0)
                             : NvmlValue<bool>::fail(a->error(r));
  });
}

NvmlValue<int> Nvml::other_processes(const std::string& bus) const {
  const Api* a = api_.get();
  bool present = a && a->compute_processes && a->graphics_processes;
  return on_device<int>(a, why_, bus, present, [&](nvmlDevice_t d) {
    std::set<unsigned> pids;
    for (ProcessQuery query : {a->compute_processes, a->graphics_processes}) {
      std::vector<NvmlProcessInfo> infos(16);
      unsigned count = static_cast<unsigned>(infos.size());
      nvmlReturn_t r = query(d, &count, infos.data());
      if (r == kNvmlInsufficientSize) {
        infos.resize(count + 16);
        count = static_cast<unsigned>(infos.size());
        r = query(d, &count, infos.data());
      }
      if (r != kNvmlSuccess) return NvmlValue<int>::fail(a->error(r));
      for (unsigned i = 0; i < count; ++i) pids.insert(infos[i].pid);
    }
    pids.erase(static_cast<unsigned>(getpid()));
    return NvmlValue<int>::ok(static_cast<int>(pids.size()));
  });
}

NvmlValue<double> Nvml::others_sm_percent(const std::string& bus,
                                          unsigned long long& since_us) const {
  const Api* a = api_.get();
  return on_device<double>(a, why_, bus, a && a->process_utilization, [&](nvmlDevice_t d) {
    unsigned count = 0;
    nvmlReturn_t r = a->process_utilization(d, nullptr, &count, since_us);
    if (r == kNvmlNotFound) return NvmlValue<double>::ok(0);
    if (r != kNvmlSuccess && r != kNvmlInsufficientSize)
      return NvmlValue<double>::fail(a->error(r));
    std::vector<NvmlProcessSample> samples(count + 8);
    count = static_cast<unsigned>(samples.size());
    r = a->process_utilization(d, samples.data(), &count, since_us);
    if (r == kNvmlNotFound) return NvmlValue<double>::ok(0);
    if (r != kNvmlSuccess) return NvmlValue<double>::fail(a->error(r));
    double highest = 0;
    const auto self = static_cast<unsigned>(getpid());
    for (unsigned i = 0; i < count; ++i) {
      since_us = std::max(since_us, samples[i].time_stamp);
      if (samples[i].pid != self) highest = std::max<double>(highest, samples[i].sm_util);
    }
    return NvmlValue<double>::ok(highest);
  });
}

NvmlValue<std::vector<std::string>> Nvml::slowdowns(const std::string& bus) const {
  using V = NvmlValue<std::vector<std::string>>;
  const Api* a = api_.get();
  return on_device<std::vector<std::string>>(a, why_, bus, a && a->clock_events,
                                             [&](nvmlDevice_t d) {
                                               unsigned long long reasons = 0;
                                               nvmlReturn_t r = a->clock_events(d, &reasons);
                                               if (r != kNvmlSuccess) return V::fail(a->error(r));
                                               std::vector<std::string> names;
                                               for (const auto& n : kSlowdowns)
                                                 if (reasons & n.bit) names.emplace_back(n.name);
                                               return V::ok(names);
                                             });
}

NvmlValue<unsigned long long> Nvml::ecc_uncorrected(const std::string& bus) const {
  using V = NvmlValue<unsigned long long>;
  const Api* a = api_.get();
  return on_device<unsigned long long>(a, why_, bus, a && a->total_ecc_errors, [&](nvmlDevice_t d) {
    unsigned long long count = 0;
    nvmlReturn_t r = a->total_ecc_errors(d, kNvmlMemoryErrorUncorrected, kNvmlVolatileEcc, &count);
    return r == kNvmlSuccess ? V::ok(count) : V::fail(a->error(r));
  });
}

NvmlValue<NvlinkPath> Nvml::nvlinks_to(const std::string& bus, const std::string& peer) const {
  const Api* a = api_.get();
  const bool present = a && a->nvlink_state && a->nvlink_version && a->nvlink_remote_pci;
  return on_device<NvlinkPath>(a, why_, bus, present, [&](nvmlDevice_t d) {
    NvlinkPath path;
    for (unsigned link = 0; link < kNvmlNvlinkMaxLinks; ++link) {
      int active = 0;
      if (a->nvlink_state(d, link, &active) != kNvmlSuccess || active == 0) continue;
      int type = -1;
      const bool to_switch = a->nvlink_remote_type &&
                             a->nvlink_remote_type(d, link, &type) == kNvmlSuccess &&
                             type == kNvlinkRemoteSwitch;
      NvmlPciInfo remote{};
      const bool to_peer = !to_switch && a->nvlink_remote_pci(d, link, &remote) == kNvmlSuccess &&
                           same_bus(remote.bus_id, peer);
      if (!to_switch && !to_peer) continue;
      ++path.links;
      path.through_switch = path.through_switch || to_switch;
      unsigned code = 0;
      if (a->nvlink_version(d, link, &code) == kNvmlSuccess)
        path.generation = std::max(path.generation, nvlink_generation(code));
    }
    return NvmlValue<NvlinkPath>::ok(path);
  });
}

}  // namespace gputopo::device::cuda
