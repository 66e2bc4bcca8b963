#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "device/cuda/device_memory.hpp"
#include "device/cuda/reduction_kernel.hpp"
#include "device/info.hpp"
#include "device/requests.hpp"
#include "device/results.hpp"

namespace gputopo::device::cuda {

// Reductions from every SM to a set of lines (Device::reductions): two blocks of 256 threads an
// SM, one launch, timed by the kernel itself. The lines' buffer stays allocated between calls
// (again only for a larger span), so that calls comparing lines reach the same memory.
class ReductionRunner {
 public:
  ReductionRunner(const DeviceInfo& info, cudaStream_t stream) : info_(info), stream_(stream) {}
  ReductionResult run(const ReductionRequest& request);

 private:
  // The latency kernel on the timed SM, launched again (at most 3 times) where no block of it
  // reached that SM.
  std::vector<double> timed(ReductionArgs a, std::size_t visits);

  const DeviceInfo& info_;
  cudaStream_t stream_;
  DeviceArena lines_{"reduction lines", 4096};
  DeviceArena span_{"reduction span"};
  DeviceArena cycles_{"reduction cycles"};
};

}  // namespace gputopo::device::cuda
