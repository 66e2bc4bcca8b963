#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device/compute_request.hpp"
#include "device/results.hpp"
#include "discovery/context.hpp"
#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Chain lengths and shapes of the pipeline probe (docs/compute.md, "Pipelines").
inline constexpr std::uint32_t kLatencyShortSteps = 256;
inline constexpr std::uint32_t kLatencyLongSteps = 1024;
inline constexpr std::uint32_t kThroughputShortSteps = 64;
inline constexpr std::uint32_t kThroughputLongSteps = 256;
inline constexpr std::uint32_t kThroughputIlp = 8;
inline constexpr int kPipelineRepeats = 5;

// A tensor-core op's throughput `thr` (thread instructions per clock per SM) as operations per
// clock per SM (2 M N K per warp instruction) and as TFLOP/s (TOPS for integers) of the whole GPU
// at the clock the batch measured: compute.<op>PerClkPerSm and compute.<op>Tflops.
void put_tensor_rates(Context& ctx, const device::ComputeOpInfo& o, const model::Attribute& thr,
                      const device::RunConditions& c);

}  // namespace gputopo::discovery
