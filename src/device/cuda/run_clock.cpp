#include "device/cuda/run_clock.hpp"

#include <cuda_runtime.h>

#include <array>

#include "device/cuda/check.hpp"
#include "device/cuda/nvml.hpp"
#include "device/cuda/plan/run_stats.hpp"

namespace gputopo::device::cuda {

RunClock::RunClock(int device_index) {
  std::array<char, 64> id{};
  check(cudaDeviceGetPCIBusId(id.data(), static_cast<int>(id.size()), device_index),
        "cudaDeviceGetPCIBusId");
  pci_bus_id_ = id.data();
}

std::optional<double> RunClock::sm_mhz() const {
  return Nvml::instance().clock_mhz(pci_bus_id_, NvmlClock::Sm).value;
}

std::optional<int> RunClock::other_processes() const {
  return Nvml::instance().other_processes(pci_bus_id_).value;
}

DeviceState RunClock::state() {
  const Nvml& nvml = Nvml::instance();
  DeviceState s;
  std::string missing;
  auto take = [&](auto value, auto& into, const char* what) {
    if (value.value)
      into = *value.value;
    else
      missing += (missing.empty() ? "" : "; ") + std::string(what) + ": " + value.reason;
  };
  take(nvml.other_processes(pci_bus_id_), s.other_processes, "processes");
  take(nvml.others_sm_percent(pci_bus_id_, utilization_since_us_), s.others_sm_percent,
       "process utilisation");
  take(nvml.clock_mhz(pci_bus_id_, NvmlClock::Sm), s.sm_clock_mhz, "SM clock");
  take(nvml.slowdowns(pci_bus_id_), s.slowdowns, "clock events");
  take(nvml.ecc_uncorrected(pci_bus_id_), s.ecc_uncorrected, "ECC");
  s.unavailable = missing;
  return s;
}

RunConditions RunClock::begin() const {
  RunConditions c;
  c.sm_clock_mhz_before = sm_mhz();
  return c;
}

void RunClock::end(RunConditions& c) const {
  c.sm_clock_mhz_after = sm_mhz();
  c.clock_changed = clock_changed(c.sm_clock_mhz_before, c.sm_clock_mhz_after);
}

}  // namespace gputopo::device::cuda
