#pragma once

#include <string>

#include "model/report.hpp"

namespace gputopo::report {

// Incremented when a key changes meaning or disappears (docs/schema.md).
inline constexpr int kSchemaVersion = 1;

// The report as JSON: schema, tool, run, device, compute, memory, warnings (docs/schema.md).
// `run.simulated` and `device.simulated` both come from Report::simulated.
model::Json to_json(const model::Report& report);

// Indented JSON text with a final newline. Strings that are not UTF-8 (a file name from the command
// line) are written with U+FFFD in place of the bytes that are not.
std::string to_json_text(const model::Report& report);
std::string to_json_text(const model::Json& json);

}  // namespace gputopo::report
