#pragma once

#include "model/device_info.hpp"

namespace gputopo::device {

using model::DeviceInfo;

// The most SMs a simulated or recorded device may have (the largest GPUs have about 160): the
// discovery's work and memory grow faster than the SM count.
constexpr int kMaxSmCount = 256;

}  // namespace gputopo::device
