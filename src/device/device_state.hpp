#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gputopo::device {

// What the driver tells about a GPU's other users and health at one moment (NVML on real GPUs).
// Utilisation and events cover the time since the previous state() of the same device.
struct DeviceState {
  // Compute and graphics processes other than this one.
  std::optional<int> other_processes;
  // The highest SM utilisation (percent) of any other process since the previous reading.
  std::optional<double> others_sm_percent;
  std::optional<double> sm_clock_mhz;
  // Clock-event reasons that slow the SMs against the run's will (thermal, power brake,
  // hardware slowdown), by name; empty when none or unknown.
  std::vector<std::string> slowdowns;
  // Uncorrected ECC errors since the device was opened, and XID events since the previous
  // reading.
  std::optional<std::uint64_t> ecc_uncorrected;
  std::vector<std::uint64_t> xids;
  // Why nothing or only part could be read ("" when everything was).
  std::string unavailable;
};

}  // namespace gputopo::device
