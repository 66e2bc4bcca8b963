#pragma once

#include <atomic>

namespace gputopo::cli {

// Installs handlers for SIGINT and SIGTERM that set the returned flag, which long runs check
// between measurements so that they stop with what they have. A second signal ends the process
// at once. Idempotent.
const std::atomic<bool>& install_interrupt_handler();

}  // namespace gputopo::cli
