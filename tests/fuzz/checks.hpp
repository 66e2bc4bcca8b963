#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

// What every fuzz target asserts about how the tool ended.
namespace gputopo::fuzz {

// An input the tool did not handle cleanly. Thrown out of the target: libFuzzer reports it as a
// crash and keeps the input, the corpus test fails on it.
class Finding : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// An error message the CLI would print after "gputopo: ": one line, not empty.
void expect_one_line(std::string_view target, std::string_view message);

// A command's end: an exit code of docs/cli.md, and on stderr only lines that begin with
// "gputopo: ", none of them an unexpected error.
void expect_clean_exit(std::string_view target, int exit_code, std::string_view err);

// stdout of a --json run: nothing, or one JSON document.
void expect_json_or_nothing(std::string_view target, std::string_view out);

}  // namespace gputopo::fuzz
