#pragma once

#include <chrono>

namespace gputopo::device {

// GPUTOPO_CALL_TRACE: prints on stderr how many milliseconds after the process started (its
// static initialisation) `step` was reached, so that a run's time outside discovery can be split.
void trace_startup(const char* step);

// GPUTOPO_CALL_TRACE: one device call's wall and timed milliseconds on stderr, with who made it.
void trace_call(const char* who, const char* what, std::chrono::steady_clock::duration wall,
                double device_ns);

}  // namespace gputopo::device
