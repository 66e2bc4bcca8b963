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
