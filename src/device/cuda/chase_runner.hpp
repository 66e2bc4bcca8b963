#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/cuda/chase_arrays.hpp"
#include "device/cuda/chase_job.hpp"
#include "device/cuda/chase_unit.hpp"
#include "device/cuda/device_memory.hpp"
#include "device/cuda/kernels.hpp"
#include "device/cuda/plan/batch_plan.hpp"
#include "device/cuda/plan/chase_layout.hpp"
#include "device/cuda/plan/launch_check.hpp"
#include "device/cuda/run_clock.hpp"
#include "device/device.hpp"

namespace gputopo::device::cuda {

// Runs chase and interference batches: plans launches, builds the arrays at 2 MiB-aligned
// offsets, launches one job per SM, checks where each ran and re-runs collisions. A batch's
// launches are queued on the stream (each after its L2 flush where one is needed) and read back
// together.
class ChaseRunner {
 public:
  ChaseRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock);

  // Runs the units under the carve-out and the L2 fetch-granularity limit (each nullopt: the
  // driver's setting); the limit is restored after the batch.
  ChaseBatchResult run(const std::vector<ChaseUnit>& units, std::optional<int> carveout,
                       std::optional<std::uint32_t> l2_fetch_limit = std::nullopt);

  // The timing overhead of this run: the median of a chase with no load (measured once).
  double overhead_cycles();

  // Gives the array memory back to the device where it holds more than 1 GiB. The arrays stay
  // between batches otherwise: a phase whose batches chase tens of GiB (the TLB's at full depth)
  // allocates them once, not once a batch.
  void release_large_arrays();

 private:
  struct Attempt {
    std::vector<JobOutcome> outcomes;
    std::vector<ChaseJob> jobs;
    double span_ns = 0;
    double span_cycles = 0;
  };
  // Where one launch's jobs and records lie on the device.
  struct Slots {
    std::uint8_t* jobs = nullptr;
    std::uint8_t* records = nullptr;
  };
  // A launch on the stream, read back once the stream is done.
  struct Queued {
    std::unique_ptr<LaunchArrays> arrays;  // alive until the launch is done (texture objects)
    std::vector<ChaseJob> jobs;
    // The host copies' sources, alive until the launch is done too (a pageable copy is staged
    // before the call returns, but nothing here relies on it).
    std::vector<std::int32_t> sm_to_job;
    std::vector<std::int32_t> unplaced;
    Placement records;  // of the launch's records within its slot
    bool wide = false;
    double wait_s = 0;  // how long the host waits for it at most
    std::string what;
  };

  void validate(const ChaseUnit& unit) const;
  std::vector<PlanUnit> plan_units_of(const std::vector<ChaseUnit>& units) const;
  // Runs the launches (unit indices each) until every job ran on its own SM: queued together, each
  // attempt's re-runs in a further queue; a launch whose units are not SM-private after an L2
  // flush.
  void run_launches(const std::vector<ChaseUnit>& units, const std::vector<PlanUnit>& plan_units,
                    std::vector<std::vector<std::size_t>> pending, std::optional<int> carveout,
                    ChaseBatchResult& out);
  Attempt launch(const std::vector<const ChaseUnit*>& units, std::optional<int> carveout,
                 std::optional<ChaseVariant> variant, std::vector<ChaseResult>& results);
  // Puts every launch on the stream (after an L2 flush where `flush` says so), one after another
  // with no wait between them, waits once and reads all back: the host's work for the next
  // launch overlaps the device's for this one.
  std::vector<Attempt> launch_queue(const std::vector<std::vector<const ChaseUnit*>>& launches,
                                    std::optional<int> carveout,
                                    std::optional<ChaseVariant> variant,
                                    std::vector<std::vector<ChaseResult>>& results,
                                    const std::vector<bool>& flush);
  // Builds the launch's arrays and jobs and puts them, the kernel, and nothing to wait on, on the
  // stream (with `wait_for_fills`, waits for the array fills as LaunchArrays does).
  Queued enqueue(const std::vector<const ChaseUnit*>& units, std::optional<int> carveout,
                 std::optional<ChaseVariant> variant, Slots slots, bool wait_for_fills);
  Placement record_placement(const std::vector<const ChaseUnit*>& units) const;
  static Placement control_placement(std::size_t unplaced);
  // The outcome of each job and, for those that ran, their results and time span.
  Attempt collect(const std::vector<const ChaseUnit*>& units, std::vector<ChaseJob> jobs,
                  const std::uint8_t* host_records,
                  const std::vector<std::uint64_t>& record_offsets, bool wide,
                  std::vector<ChaseResult>& results);
  // Puts a read of twice the L2 on the stream: the next kernel finds none of its lines there.
  void flush_l2();
  void ramp_clocks();

  const DeviceInfo& info_;
  cudaStream_t stream_;
  const RunClock& clock_;
  ChaseLimits limits_;
  DeviceArena arrays_{"chase arrays", std::uint64_t{2} << 20};
  DeviceArena records_{"chase records"};
  DeviceArena jobs_{"chase jobs"};
  DeviceArena control_{"chase control"};
  DeviceArena successors_{"chase permutation"};
  DeviceArena flush_{"L2 flush buffer"};
  std::optional<double> overhead_;
  // GPUTOPO_CHASE_TRACE: a batch's job time before and after the warm-up, on stderr.
  bool trace_ = false;
  double warm_ns_ = 0;
  double timed_ns_ = 0;
  std::size_t traced_jobs_ = 0;
};

}  // namespace gputopo::device::cuda
