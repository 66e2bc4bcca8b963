#pragma once

#include <atomic>
#include <ostream>

#include "cli/options.hpp"

namespace gputopo::cli {

// Runs the command the options name and returns its exit code (docs/cli.md). Every failure
// becomes one line on `err` beginning with "gputopo: "; an exception of a kind the tool does not
// document is reported as "unexpected error" (exit 4).
int run_command(const Options& options, std::ostream& out, std::ostream& err,
                const std::atomic<bool>& interrupted);

}  // namespace gputopo::cli
