#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_process.hpp"

// What the tests of the built binary share: running it, scratch files, the schema check.
namespace gputopo::test {

// The built binary (GPUTOPO_BINARY) with `args`; SIGINT once `interrupt_after` shows on stderr.
ProcessResult gputopo(std::vector<std::string> args, const std::string& interrupt_after = {});

// A path in GoogleTest's scratch directory, unique to this process.
std::filesystem::path temp_file(const std::string& name);

// A failure reported as one line on stderr, "gputopo: ..." (containing `contains`), nothing on
// stdout, and exit `code`.
void expect_one_line_error(const ProcessResult& r, int code, const std::string& contains = {});

// Every violation of docs/gputopo.schema.json, as a failed expectation.
void expect_conforms(const nlohmann::json& report);

}  // namespace gputopo::test
