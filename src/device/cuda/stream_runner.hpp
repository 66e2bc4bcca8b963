#pragma once

#include <cuda_runtime.h>

#include "device/cuda/device_memory.hpp"
#include "device/cuda/run_clock.hpp"
#include "device/device.hpp"

namespace gputopo::device::cuda {

// Read, write and copy bandwidth with 16-byte accesses. The launch shape (blocks per SM x
// threads) is tuned per request: every candidate runs once, the fastest is then timed. A launch
// passes over a small buffer several times (at least 256 MiB moved per launch).
class StreamRunner {
 public:
  StreamRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock);
  ~StreamRunner();
  StreamRunner(const StreamRunner&) = delete;
  StreamRunner& operator=(const StreamRunner&) = delete;

  StreamResult run(const StreamRequest& request);

 private:
  // Seconds for `launches` launches of the stream kernel, timed with events.
  double time(int kind, std::uint64_t vectors, std::uint32_t blocks, std::uint32_t threads,
              std::uint32_t launches, double expected_s);

  const DeviceInfo& info_;
  cudaStream_t stream_;
  const RunClock& clock_;
  DeviceArena source_{"stream source buffer"};
  DeviceArena target_{"stream target buffer"};
  DeviceArena sink_{"stream sink"};
  std::uint32_t passes_ = 1;  // passes over the buffer per launch
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace gputopo::device::cuda
