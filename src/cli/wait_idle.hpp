#pragma once

#include <atomic>
#include <ostream>

#include "device/device.hpp"

namespace gputopo::cli {

// Waits until the driver shows no other work on the GPU (discovery::busy_reason) or `seconds`
// have passed, asking every `poll_s` and saying on `err` what it waits for (unless quiet).
// Returns true when the GPU is free; false when time ran out or the run was interrupted.
bool wait_idle(device::Device& device, double seconds, std::ostream& err, bool quiet,
               const std::atomic<bool>& interrupted, double poll_s = 1.0);

}  // namespace gputopo::cli
