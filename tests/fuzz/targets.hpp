#pragma once

#include <string_view>

// The fuzz targets (docs/testing.md). Each takes arbitrary bytes and returns when the tool ended
// cleanly: with a result, or with one line naming the input and an exit code of docs/cli.md. Any
// other ending is a finding: a Finding (checks.hpp), an exception of another kind, or a crash,
// hang or runaway allocation caught by libFuzzer and the sanitizers.
namespace gputopo::fuzz {

// The bytes as a --sim configuration file: loaded, and made into a simulated device.
void fuzz_sim_config(std::string_view input);

// The bytes as a --raw recording (recording_archive.hpp), replayed as `gputopo analyze`.
void fuzz_recording(std::string_view input);

// The bytes as a command line, one argument a line: parsed; `info` and `list` are run.
void fuzz_cli(std::string_view input);

}  // namespace gputopo::fuzz
