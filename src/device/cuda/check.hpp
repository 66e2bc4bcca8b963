#pragma once

#include <cuda_runtime.h>

#include <string>

#include "device/device.hpp"

namespace gputopo::device::cuda {

// Every CUDA call goes through this: a failure becomes Error(Measurement) saying what failed.
inline void check(cudaError_t rc, const std::string& what) {
  if (rc == cudaSuccess) return;
  throw Error(Error::Kind::Measurement, "CUDA error in " + what + ": " + cudaGetErrorString(rc) +
                                            " (" + cudaGetErrorName(rc) + ")");
}

// Waits for `stream` without ever blocking for good: past `seconds` it throws
// Error(Measurement) naming the kernel, since a kernel that far over its expected time is hung
// or starved by another process.
void wait_for(cudaStream_t stream, double seconds, const std::string& what);

}  // namespace gputopo::device::cuda
