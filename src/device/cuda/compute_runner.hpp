#pragma once

#include <cuda_runtime.h>

#include "device/cuda/device_memory.hpp"
#include "device/cuda/run_clock.hpp"
#include "device/device.hpp"

namespace gputopo::device::cuda {

// Runs compute batches: one launch per request, all queued on the stream and waited for once.
// Each launch has a device-side deadline from a generous bound of its work.
class ComputeRunner {
 public:
  ComputeRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock);
  ComputeRunner(const ComputeRunner&) = delete;
  ComputeRunner& operator=(const ComputeRunner&) = delete;

  ComputeBatchResult run(const ComputeBatch& batch);

 private:
  const DeviceInfo& info_;
  cudaStream_t stream_;
  const RunClock& clock_;
  DeviceArena records_{"compute records"};
  DeviceArena words_{"compute atomic words"};
};

}  // namespace gputopo::device::cuda
