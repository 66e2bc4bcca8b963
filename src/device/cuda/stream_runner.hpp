#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device/cuda/device_memory.hpp"
#include "device/cuda/kernels.hpp"
#include "device/cuda/plan/launch_shape.hpp"
#include "device/cuda/run_clock.hpp"
#include "device/device.hpp"

namespace gputopo::device::cuda {

// Read, write and copy bandwidth of device memory (through L2), and read bandwidth of the SMs' L1
// and shared memory. Each request is tuned in two rounds, every candidate warmed then timed once:
// the kernel variant (bytes per access x accesses in flight) at the fullest launch shape, then the
// launch shape (blocks per SM x threads) for the best variant, with short launches; the three best
// of each round are timed again, best of three full launches long enough that the gaps between
// them do not count, and the fastest of them is timed `repeats` times. A later request of the same
// kernel over a buffer within a factor of kReuseFactor of a tuned one skips the tuning rounds: the
// finalists of that tuning are timed again with full launches on its buffer (a probe's few buffer
// sizes of one regime share their best configurations).
class StreamRunner {
 public:
  StreamRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock);
  ~StreamRunner();
  StreamRunner(const StreamRunner&) = delete;
  StreamRunner& operator=(const StreamRunner&) = delete;

  StreamResult run(const StreamRequest& request);

 private:
  struct Config {
    StreamVariant variant;
    LaunchShape shape;
  };
  // Seconds for `launches` launches of the kernel, timed with events; `tuning`: the shorter
  // launches (and device-memory buffers) candidates are ranked with.
  double time(StreamKernel kernel, const Config& c, std::uint32_t launches, double expected_s,
              bool tuning);
  struct Timed {
    Config config;
    double seconds = 0;  // a launch
    double rate = 0;     // bytes moved a second
  };
  // Warms, then times each candidate (tuning: one launch; else the best of kFinalTimings full
  // launches); fastest first.
  // The fastest configuration of `kernel`: the variants on the first shape, the shapes with the
  // best variant, then the finalists of both timed again; with how many were tried.
  struct Tuned {
    Config best;
    double launch_s = 0;
    std::uint32_t candidates = 0;
  };
  Tuned tune(StreamKernel kernel, const std::vector<LaunchShape>& shapes, double guess_s);
  std::vector<Timed> rank(StreamKernel kernel, const std::vector<Config>& candidates,
                          double expected_s, bool tuning);
  // Launch arguments: the buffers, accesses per buffer (or per block slice) and passes.
  StreamArgs args(StreamKernel kernel, const Config& c, bool tuning);
  std::uint32_t blocks(const Config& c, const StreamArgs& a) const;
  // Bytes a launch with these arguments moves (read + written).
  double moved(StreamKernel kernel, const Config& c, const StreamArgs& a) const;

  const DeviceInfo& info_;
  cudaStream_t stream_;
  const RunClock& clock_;
  DeviceArena source_{"stream source buffer"};
  DeviceArena target_{"stream target buffer"};
  DeviceArena sink_{"stream sink"};
  std::uint64_t bytes_ = 0;  // the request's buffer (or per-block slice) size
  std::uint64_t bytes_per_launch_ = 0;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  bool trace_ = false;  // GPUTOPO_STREAM_TRACE: every candidate's rate to stderr
  // The finalists of each tuning, fastest first, with its kernel and buffer.
  struct Tuning {
    StreamKernel kernel;
    std::uint64_t bytes = 0;
    std::vector<Config> finalists;
  };
  std::vector<Tuning> tunings_;
};

}  // namespace gputopo::device::cuda
