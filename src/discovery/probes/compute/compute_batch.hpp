#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/compute_request.hpp"
#include "discovery/context.hpp"

// The batches of the compute probes that take cycles per step from two chain lengths.
namespace gputopo::discovery {

// Every item at `short_steps` and at `long_steps`, `repeats` times, repeat-major: the layout
// item_slope() reads.
device::ComputeBatch two_length_batch(const std::vector<device::ComputeRequest>& items, int repeats,
                                      std::uint32_t short_steps, std::uint32_t long_steps);

// Runs `batch` as one progress step; nullopt with `why` where the device refuses it (a simulated
// GPU without compute, a recording without the request): the probe's values are then not
// established, with that reason. Other device errors propagate.
std::optional<device::ComputeBatchResult> run_compute_batch(Context& ctx,
                                                            const device::ComputeBatch& batch,
                                                            std::string& why);

}  // namespace gputopo::discovery
