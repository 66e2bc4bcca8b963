#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "device/cuda/cuda_event.hpp"
#include "device/cuda/device_memory.hpp"
#include "device/cuda/kernels.hpp"
#include "device/cuda/plan/launch_shape.hpp"
#include "device/cuda/plan/tuning_memo.hpp"
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
// leading finalists of that tuning are timed again with full launches on its buffer (a probe's
// few buffer sizes of one regime share their best configurations), the winner alone on the same
// buffer.
class StreamRunner {
 public:
  StreamRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock);
  StreamRunner(const StreamRunner&) = delete;
  StreamRunner& operator=(const StreamRunner&) = delete;

  StreamResult run(const StreamRequest& request);

 private:
  struct Config {
    StreamVariant variant;
    LaunchShape shape;
  };
  double since_start_ms() const;
  // Whether this kernel has been launched in the process (its module is loaded).
  bool launched(StreamKernel kernel, const StreamVariant& v) const;
  // Seconds for `launches` launches of the kernel, timed with events; `tuning`: the shorter
  // launches (and device-memory buffers) candidates are ranked with.
  double time(StreamKernel kernel, const Config& c, std::uint32_t launches, double expected_s,
              bool tuning);
  struct Timed {
    Config config;
    double seconds = 0;  // a launch
    double rate = 0;     // bytes moved a second
  };
  Timed timed(StreamKernel kernel, const Config& c, double seconds, bool tuning);
  static void fastest_first(std::vector<Timed>& ranked);
  // The fastest configuration of `kernel`: the variants on the first shape, the shapes with the
  // best variant, then the finalists of both timed again; with how many were tried.
  struct Tuned {
    Config best;
    double launch_s = 0;
    std::uint32_t candidates = 0;
    bool from_memo = false;
  };
  Tuned tune(StreamKernel kernel, const std::vector<LaunchShape>& shapes, double guess_s);
  // The memo's finalists for this kernel and buffer timed again, where they still reach the memo's
  // rate; else nullopt and the kernel is tuned.
  std::optional<Tuned> from_memo(StreamKernel kernel, const std::vector<LaunchShape>& shapes,
                                 double full_guess_s);
  // Keeps a final round's configurations, fastest first, for later buffers of this run and for
  // later runs; `earlier`: the memo entry they were taken from.
  void remember(StreamKernel kernel, const std::vector<Timed>& finals,
                const MemoEntry* earlier = nullptr);
  // Times each candidate with one short (tuning) launch after a warm-up where it needs one;
  // fastest first.
  std::vector<Timed> rank(StreamKernel kernel, const std::vector<Config>& candidates,
                          double expected_s);
  // Each finalist's best of up to kFinalTimings full launches after a warm-up; fastest first.
  std::vector<Timed> final_round(StreamKernel kernel, const std::vector<Config>& finalists,
                                 double expected_s);
  // The winner's timed repeats into `result`. SM-local kernels: each repeat's rate is taken
  // between a full launch and the fastest of as many short ones (an eighth), so that a launch's
  // fixed cost (its cold first pass over the slices, the blocks' start and end) drops out, as it
  // does from a kernel that runs for seconds; that cost goes into `launch_cost_ns`.
  void time_repeats(StreamKernel kernel, const Config& best, double launch_s, std::uint32_t repeats,
                    StreamResult& result);
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
  Event start_, stop_;
  bool trace_ = false;  // GPUTOPO_STREAM_TRACE: every candidate's rate to stderr
  std::chrono::steady_clock::time_point started_;  // of the request being run, for the trace
  // The finalists of each tuning, fastest first, with its kernel and buffer.
  struct Tuning {
    StreamKernel kernel;
    std::uint64_t bytes = 0;
    std::vector<Config> finalists;
    bool from_memo = false;  // the finalists are the memo's
  };
  std::vector<Tuning> tunings_;
  TuningMemo memo_;
  std::vector<std::pair<StreamKernel, StreamVariant>> launched_;
};

}  // namespace gputopo::device::cuda
