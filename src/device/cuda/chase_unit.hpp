#pragma once

#include <cstdint>
#include <optional>

#include "device/cuda/chase_job.hpp"
#include "device/requests.hpp"

namespace gputopo::device::cuda {

// One measured unit: a plain chase of A, or an interference pair (A warms, B warms, A is timed).
struct ChaseUnit {
  ChaseRequest a;
  std::optional<ChaseRequest> b;
  JobMode mode = JobMode::Chase;
  std::uint32_t thread_a = 0;
  std::uint32_t thread_b = 0;
  int sm = -1;
  int sm_b = -1;  // JobMode::TwoSmsA: B's SM
};

}  // namespace gputopo::device::cuda
