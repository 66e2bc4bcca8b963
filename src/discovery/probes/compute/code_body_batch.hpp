#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/compute_request.hpp"
#include "discovery/context.hpp"
#include "discovery/probes/compute/slope.hpp"

// The batches of the probes that time the code-body op (instruction caches, and the constant
// chase beside them).
namespace gputopo::discovery {

// Bytes of one SASS instruction (every sm_70+ instruction).
inline constexpr double kSassInstructionBytes = 16;

// A code-body request of `instructions` FFMAs, with a constant chase over `data_bytes` where set.
device::ComputeRequest code_body(std::uint32_t instructions,
                                 std::optional<std::uint32_t> data_bytes = std::nullopt);

// Cycles of one pass over each item's body (and its chase): the slope between 4 and 16 passes,
// the median of 5 repeats, all in one batch. nullopt with `why` where the device refuses it.
std::optional<std::vector<Slope>> cycles_per_pass(Context& ctx,
                                                  const std::vector<device::ComputeRequest>& items,
                                                  std::string& why);

}  // namespace gputopo::discovery
