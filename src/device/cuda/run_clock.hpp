#pragma once

#include <optional>
#include <string>

#include "device/device_state.hpp"
#include "device/results.hpp"

namespace gputopo::device::cuda {

// The SM clock and other users of one GPU, read through NVML by PCI bus id. Nothing here changes
// any setting of the card.
class RunClock {
 public:
  explicit RunClock(int device_index);

  std::optional<double> sm_mhz() const;
  // Processes other than this one on the GPU, when NVML can tell.
  std::optional<int> other_processes() const;
  // Other users and health now; utilisation since the previous call.
  DeviceState state();

  // Starts a RunConditions with the clock as read now.
  RunConditions begin() const;
  // Reads the clock again and flags a change.
  void end(RunConditions& conditions) const;

 private:
  std::string pci_bus_id_;
  unsigned long long utilization_since_us_ = 0;
};

}  // namespace gputopo::device::cuda
