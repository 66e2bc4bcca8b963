#pragma once

#include <cuda_runtime.h>

#include <string>

#include "device/device.hpp"

namespace gputopo::device::cuda {

// The kind of error a failed CUDA call is: OutOfMemory for an allocation, Lost for the errors
// after which the context (or the GPU) is unusable, Measurement otherwise.
Error::Kind error_kind(cudaError_t rc);

// Every CUDA call goes through this: a failure becomes an Error of error_kind(rc) saying what
// failed.
inline void check(cudaError_t rc, const std::string& what) {
  if (rc == cudaSuccess) return;
  throw Error(error_kind(rc), "CUDA error in " + what + ": " + cudaGetErrorString(rc) + " (" +
                                  cudaGetErrorName(rc) + ")");
}

// Waits for `stream` without ever blocking for good: past `seconds` it throws Error(Lost) naming
// the kernel, since a kernel that far over its expected time is hung or starved by another
// process, and cannot be cancelled: everything queued after it would wait too.
void wait_for(cudaStream_t stream, double seconds, const std::string& what);

// How long copying a run's records back to the host may take.
inline constexpr double kCopyBackSeconds = 60;

}  // namespace gputopo::device::cuda
