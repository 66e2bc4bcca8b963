#pragma once

#include <atomic>
#include <chrono>
#include <functional>

namespace gputopo::cli {

// How long a run may take to stop after SIGINT or SIGTERM before it is ended (docs/cli.md).
inline constexpr std::chrono::milliseconds kStopGrace{10000};

// Installs handlers for SIGINT, SIGTERM and SIGHUP that set the returned flag, which long runs
// check between measurements so that they stop with what they have. A second signal ends the
// process at once. A run still going `grace` after the first signal (a measurement that does not
// return) is ended from another thread: the last words (set_last_words) are called (or, where there
// are none or they wrote nothing, one line on stderr says so), then the process exits with code 4.
// Idempotent; the grace of the first call holds.
const std::atomic<bool>& install_interrupt_handler(std::chrono::milliseconds grace = kStopGrace);

// What to do before the process is ended after the grace period (write the partial report, and
// return whether it was written); an empty function clears it. Setting or clearing waits while the
// last words run.
void set_last_words(std::function<bool()> last_words);

}  // namespace gputopo::cli
