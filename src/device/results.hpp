#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gputopo::device {

// Conditions a batch ran under. Clocks come from NVML where it is available.
struct RunConditions {
  std::optional<double> sm_clock_mhz_before;
  std::optional<double> sm_clock_mhz_after;
  bool clock_changed = false;
  std::optional<int> carveout_percent;  // the carve-out applied, when one was set
  // The L2 fetch-granularity limit in effect during the batch, as read back from the driver,
  // whether or not the batch set one; nullopt where the backend cannot read it.
  std::optional<std::uint32_t> l2_fetch_limit_bytes;
  double elapsed_ns = 0;      // wall time of the batch on the device (%globaltimer)
  double elapsed_cycles = 0;  // the same span in SM cycles, to convert cycles to ns
  std::uint32_t reruns = 0;   // requests re-run because two shared an SM
};

struct ChaseResult {
  // Raw per-load cycle counts as read, the timing overhead included.
  std::vector<std::uint32_t> cycles;
  // The element index each timed load returned, when the request asked for it.
  std::vector<std::uint64_t> indices;
  int sm = -1;
  // Cycles the timing itself adds to each load (clock reads, dependent store). A consumer
  // subtracts this to get the load latency; it is measured once per run, never hidden.
  double overhead_cycles = 0;
  // A chain-timed result: loads in each segment (0 where the producer predates segment lengths:
  // kChainSegmentLoads).
  std::uint32_t segment_loads = 0;
};

struct ChaseBatchResult {
  std::vector<ChaseResult> results;  // one per request, same order
  RunConditions conditions;
};

struct ReadRateResult {
  std::vector<double> gbps;  // one per repeat: bytes loaded per second / 1e9
  RunConditions conditions;
};

struct ReductionResult {
  double seconds = 0;  // the kernel's own span: its first block's start to its last block's end
  // With a timed SM: each visit's cycles a reduction, pass by pass in the request's line order.
  std::vector<double> cycles;
  RunConditions conditions;
};

struct StreamResult {
  std::vector<double> gbps;  // one per repeat, bytes moved (read + written) per second / 1e9
  // The fastest kernel of the family: launch shape, bytes per access, accesses in flight per
  // thread (nullopt where the backend does not vary it), and how many kernels were tried.
  std::uint32_t blocks = 0;
  std::uint32_t threads_per_block = 0;
  std::uint32_t vector_bytes = 16;
  std::optional<std::uint32_t> unroll;
  std::optional<std::uint32_t> candidates;
  // True where the tuning rounds were skipped: an earlier run's finalists on this GPU, from the
  // backend's tuning memo, were timed again and reached that run's rate.
  std::optional<bool> from_memo;
  // Where the rate comes from two launch lengths: the fixed cost of a launch that it leaves out.
  std::optional<double> launch_cost_ns;
  RunConditions conditions;
};

}  // namespace gputopo::device
