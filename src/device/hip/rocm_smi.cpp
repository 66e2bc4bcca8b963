#include "device/hip/rocm_smi.hpp"

#include <dlfcn.h>

#include <cstdint>

namespace gputopo::device::hip {
namespace {
// The few declarations of rocm_smi.h this file needs (its C ABI; the header is not installed here).
using rsmi_status_t = int;
constexpr rsmi_status_t kRsmiSuccess = 0;
using InitFn = rsmi_status_t (*)(std::uint64_t);
using ShutDownFn = rsmi_status_t (*)();
// rsmi_compute_process_info_get(rsmi_process_info_t*, uint32_t*): with a null list, the count.
using ProcessesFn = rsmi_status_t (*)(void*, std::uint32_t*);
}  // namespace

struct RocmSmi::Api {
  void* lib = nullptr;
  ShutDownFn shut_down = nullptr;
  ProcessesFn processes = nullptr;
};

RocmSmi::RocmSmi() {
  auto api = std::make_unique<Api>();
  for (const char* name :
       {"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5", "librocm_smi64.so"}) {
    api->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (api->lib) break;
  }
  if (!api->lib) return;
  const auto init = reinterpret_cast<InitFn>(dlsym(api->lib, "rsmi_init"));
  api->shut_down = reinterpret_cast<ShutDownFn>(dlsym(api->lib, "rsmi_shut_down"));
  api->processes = reinterpret_cast<ProcessesFn>(dlsym(api->lib, "rsmi_compute_process_info_get"));
  if (!init || init(0) != kRsmiSuccess) {
    dlclose(api->lib);
    return;
  }
  api_ = std::move(api);
}

RocmSmi::~RocmSmi() {
  if (!api_) return;
  if (api_->shut_down) api_->shut_down();
  dlclose(api_->lib);
}

bool RocmSmi::loaded() const { return api_ != nullptr; }

DeviceState RocmSmi::state() const {
  DeviceState s;
  if (!api_ || !api_->processes) {
    s.unavailable = "rocm-smi's library (librocm_smi64) is not installed or did not start";
    return s;
  }
  std::uint32_t count = 0;
  if (api_->processes(nullptr, &count) != kRsmiSuccess) {
    s.unavailable = "rocm-smi did not list the compute processes";
    return s;
  }
  // This process is one of them once it holds a context.
  s.other_processes = count > 0 ? static_cast<int>(count) - 1 : 0;
  s.unavailable = "rocm-smi: clocks, utilisation of others and errors are not read";
  return s;
}

}  // namespace gputopo::device::hip
