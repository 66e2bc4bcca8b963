#pragma once

#include "model/device_info.hpp"

namespace gputopo::device {

using model::DeviceInfo;

// The most SMs (CUs) a simulated or recorded device may have (the largest GPUs have about 160 SMs,
// AMD's MI300X 304 CUs): the discovery's work and memory grow faster than the SM count.
constexpr int kMaxSmCount = 320;

}  // namespace gputopo::device
