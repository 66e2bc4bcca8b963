#pragma once

#include <memory>

#include "device/device.hpp"

// Opening a real GPU, whichever backend has it: what the tool and libgputopo share.
namespace gputopo::device {

// True for an error that means no GPU or no driver (as opposed to a bad index or an old GPU).
bool no_gpu(const Error& e);

// GPU `index` through the CUDA backend; where that finds no NVIDIA GPU and this build has the HIP
// backend, through HIP (the error then names both).
std::unique_ptr<Device> open_gpu(int index);

}  // namespace gputopo::device
