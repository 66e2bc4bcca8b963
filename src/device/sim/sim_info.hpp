#pragma once

#include "device/device_info.hpp"
#include "device/sim/config.hpp"

namespace gputopo::device::sim {

// What the simulated driver reports: the typed fields and the general/compute lists, every value
// with source `api` (the simulated driver), and the values no simulation has marked unavailable.
DeviceInfo make_info(const SimConfig& config);

}  // namespace gputopo::device::sim
