#pragma once

#include <memory>

#include "device/device.hpp"

// Entry points of the HIP backend (AMD GPUs). No HIP header here: callers build without ROCm, and
// a build without hipcc links a stand-in that throws Error(NoDriver).
namespace gputopo::device::hip {

// Whether this build has the HIP backend.
bool built();

// Opens AMD GPU `index`. Throws Error: NoDriver (no HIP runtime or driver), NoDevice (index out of
// range: the message says how many GPUs exist).
std::unique_ptr<Device> open(int index);

}  // namespace gputopo::device::hip
