#pragma once

#include <chrono>
#include <string>

#include "model/run_section.hpp"

// Who wrote a report, where and when: the `tool` section and parts of `run`.
namespace gputopo::report {

std::string tool_version();       // "0.1.0"
std::string tool_git_describe();  // `git describe` at configure time, or "unknown"

// gputopo, its version and git describe: the `tool` section.
model::Tool tool_info();

// "2026-11-21T05:51:18Z"
std::string utc_timestamp(std::chrono::system_clock::time_point t);

std::string host_name();

}  // namespace gputopo::report
