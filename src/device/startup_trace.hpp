#pragma once

namespace gputopo::device {

// GPUTOPO_CALL_TRACE: prints on stderr how many milliseconds after the process started (its
// static initialisation) `step` was reached, so that a run's time outside discovery can be split.
void trace_startup(const char* step);

}  // namespace gputopo::device
