#pragma once

#include <atomic>

#include "device/device.hpp"
#include "discovery/discovery_options.hpp"
#include "discovery/progress.hpp"
#include "discovery/result.hpp"

namespace gputopo::discovery {

// Runs the discovery plan against `device`. Returns what was measured; a set `interrupted` flag
// (checked between device batches) or an exhausted time budget ends the run early with partial
// results. Throws std::invalid_argument for an unknown name in options.only (usage error); device
// errors of kind NoDriver/NoDevice/Unsupported propagate, measurement errors are recorded per
// probe (Result::failed).
Result discover(device::Device& device, const Options& options, Progress& progress,
                const std::atomic<bool>* interrupted = nullptr);

}  // namespace gputopo::discovery
