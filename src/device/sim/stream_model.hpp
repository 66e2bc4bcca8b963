#pragma once

#include <cstdint>

#include "device/requests.hpp"
#include "device/results.hpp"
#include "device/sim/config.hpp"

namespace gputopo::device::sim {

// Bandwidth of a validated stream request: the part of the footprint that fits in L2 streams at
// L2 bandwidth, the rest at DRAM bandwidth; a buffer under 256 MiB is streamed several times per
// launch, and each launch adds an overhead. Each repeat gets relative jitter from `seed`.
StreamResult model_stream(const SimConfig& config, const StreamRequest& request,
                          std::uint64_t seed);

}  // namespace gputopo::device::sim
