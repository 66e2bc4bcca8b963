#pragma once

#include <cstdint>
#include <memory>

#include "device/device.hpp"
#include "device/sim/config.hpp"

namespace gputopo::device::sim {

// `inner` as a machine around it would make it: another process's load during a span of calls,
// too little free memory, a kernel that never returns, a GPU that disappears (docs/sim.md,
// "Competing load and faults"). Its noise is seeded apart from the inner device's, so the calls
// outside the load see exactly what they would without it.
std::unique_ptr<Device> with_environment(std::unique_ptr<Device> inner,
                                         const std::optional<CompetingLoadSpec>& load,
                                         const FaultSpec& faults, std::uint64_t seed);

}  // namespace gputopo::device::sim
