#pragma once

#include <atomic>
#include <ostream>
#include <string>
#include <system_error>

#include "cli/options.hpp"

namespace gputopo::cli {

// Runs the command the options name and returns its exit code (docs/cli.md). Every failure
// becomes one line on `err` beginning with "gputopo: "; an exception of a kind the tool does not
// document is reported as "unexpected error" (exit 4).
int run_command(const Options& options, std::ostream& out, std::ostream& err,
                const std::atomic<bool>& interrupted);

// What to say when the system refused a thread or another resource (a process limit such as
// ulimit -u or -v): the message after "gputopo: " (exit 4).
std::string system_refused(const std::system_error& e);

}  // namespace gputopo::cli
