#pragma once

#include "device/cuda/built_architectures.hpp"
#include "device/device.hpp"

// What the CUDA runtime and NVML say about a device, without running anything on it.
namespace gputopo::device::cuda {

// Number of CUDA devices. Throws Error: NoDriver (no driver, or one too old for this runtime),
// NoDevice (the driver sees no GPU).
int device_count();

// Every fact the runtime and NVML give, each with the call that gave it or why there is none.
// Throws Error: NoDriver, NoDevice (index out of range: says how many GPUs exist), Unsupported
// (compute capability below minimum_compute_capability(): says which is needed).
DeviceInfo query_device_info(int index);

}  // namespace gputopo::device::cuda
