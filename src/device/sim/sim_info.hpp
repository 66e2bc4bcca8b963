#pragma once

#include "device/info.hpp"
#include "device/sim/config.hpp"

namespace gputopo::device::sim {

// What the simulated driver reports: the preset's facts, and what only real hardware has marked
// unavailable.
DeviceInfo make_info(const SimConfig& config);

}  // namespace gputopo::device::sim
