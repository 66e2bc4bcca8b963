#pragma once

#include <cuda_runtime.h>

#include "device/cuda/cuda_event.hpp"
#include "device/cuda/device_memory.hpp"
#include "device/cuda/run_clock.hpp"
#include "device/info.hpp"
#include "device/requests.hpp"
#include "device/results.hpp"

namespace gputopo::device::cuda {

// The L2 read rate of a set of SMs over a list of lines (Device::read_rate): each SM of the set
// runs one block of 1,024 threads that loads the lines in turn, all SMs equal work, so that the
// tightest bound (an SM, a GPC's port, a slice, the L2) sets the pace. A short launch sizes the
// timed ones to about half a millisecond; each repeat is one launch, timed with CUDA events.
// GPUTOPO_READ_RATE_TRACE: each call's SMs, rounds and repeats' rates on stderr.
class ReadRateRunner {
 public:
  ReadRateRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock);
  ReadRateRunner(const ReadRateRunner&) = delete;
  ReadRateRunner& operator=(const ReadRateRunner&) = delete;

  ReadRateResult run(const ReadRateRequest& request);

 private:
  struct Launch;
  void validate(const ReadRateRequest& request) const;
  // The request's lines and SMs on the device, and the kernel's arguments.
  Launch prepare(const ReadRateRequest& request);
  // Seconds of one launch of `iterations` rounds, launched again (at most 3 times) where an SM of
  // the set got no block.
  double time_launch(const Launch& launch, std::uint32_t iterations);

  const DeviceInfo& info_;
  cudaStream_t stream_;
  const RunClock& clock_;
  bool trace_ = false;
  DeviceArena buffer_{"read-rate lines"};
  DeviceArena tables_{"read-rate tables"};
  Event start_, stop_;
};

}  // namespace gputopo::device::cuda
