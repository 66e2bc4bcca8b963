#pragma once

#include <optional>
#include <string>

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

  // Starts a RunConditions with the clock as read now.
  RunConditions begin() const;
  // Reads the clock again and flags a change.
  void end(RunConditions& conditions) const;

 private:
  std::string pci_bus_id_;
};

}  // namespace gputopo::device::cuda
