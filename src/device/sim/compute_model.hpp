#pragma once

#include <cstdint>

#include "device/compute_request.hpp"
#include "device/sim/config.hpp"

namespace gputopo::device::sim {

// The cycles of a validated compute request on a simulated GPU whose config has a compute table.
// Each block's span is the largest of three bounds, plus the configured overhead and noise:
// - latency: every chain's steps one after another;
// - the pipeline: every thread's instructions at the op's rate per SM;
// - issue: each scheduler issues one warp instruction per clock for its share of the warps, plus
//   a fixed cost per loop trip.
// Blocks are dealt to SMs round-robin, one block per SM at a time. `busy` grows by the request's
// time on the device.
ComputeResult model_compute(const SimConfig& config, const ComputeRequest& request,
                            std::uint64_t seed, double& busy);

}  // namespace gputopo::device::sim
