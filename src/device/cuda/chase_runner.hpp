#pragma once

#include <cuda_runtime.h>

#include <optional>
#include <vector>

#include "device/cuda/chase_job.hpp"
#include "device/cuda/chase_unit.hpp"
#include "device/cuda/device_memory.hpp"
#include "device/cuda/kernels.hpp"
#include "device/cuda/plan/chase_layout.hpp"
#include "device/cuda/plan/launch_check.hpp"
#include "device/cuda/run_clock.hpp"
#include "device/device.hpp"

namespace gputopo::device::cuda {

// Runs chase and interference batches: plans launches, builds the arrays at 2 MiB-aligned
// offsets, launches one job per SM, checks where each ran and re-runs collisions.
class ChaseRunner {
 public:
  ChaseRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock);

  // Runs the units under the carve-out and the L2 fetch-granularity limit (each nullopt: the
  // driver's setting); the limit is restored after the batch.
  ChaseBatchResult run(const std::vector<ChaseUnit>& units, std::optional<int> carveout,
                       std::optional<std::uint32_t> l2_fetch_limit = std::nullopt);

  // The timing overhead of this run: the median of a chase with no load (measured once).
  double overhead_cycles();

 private:
  struct Attempt {
    std::vector<JobOutcome> outcomes;
    std::vector<ChaseJob> jobs;
    double span_ns = 0;
    double span_cycles = 0;
  };

  void validate(const ChaseUnit& unit) const;
  Attempt launch(const std::vector<const ChaseUnit*>& units, std::optional<int> carveout,
                 std::optional<ChaseVariant> variant, std::vector<ChaseResult>& results);
  // The outcome of each job and, for those that ran, their results and time span.
  Attempt collect(const std::vector<const ChaseUnit*>& units, std::vector<ChaseJob> jobs,
                  const std::vector<std::uint8_t>& host_records,
                  const std::vector<std::uint64_t>& record_offsets, bool wide,
                  std::vector<ChaseResult>& results);
  void flush_l2();
  void ramp_clocks();

  const DeviceInfo& info_;
  cudaStream_t stream_;
  const RunClock& clock_;
  ChaseLimits limits_;
  DeviceArena arrays_{"chase arrays", std::uint64_t{2} << 20};
  DeviceArena records_{"chase records"};
  DeviceArena control_{"chase control"};
  DeviceArena successors_{"chase permutation"};
  DeviceArena flush_{"L2 flush buffer"};
  std::optional<double> overhead_;
};

}  // namespace gputopo::device::cuda
