#include "checks.hpp"

#include <nlohmann/json.hpp>

namespace gputopo::fuzz {
namespace {

[[noreturn]] void finding(std::string_view target, std::string_view what, std::string_view text) {
  throw Finding(std::string(target) + ": " + std::string(what) + ":\n" + std::string(text));
}

}  // namespace

void expect_one_line(std::string_view target, std::string_view message) {
  if (message.empty()) finding(target, "empty error message", message);
  if (message.find_first_of("\r\n") != std::string_view::npos)
    finding(target, "error message of more than one line", message);
}

void expect_clean_exit(std::string_view target, int exit_code, std::string_view err) {
  // 5: a recording whose device state says other work was on the GPU replays as a disturbed run.
  if (exit_code != 0 && exit_code != 2 && exit_code != 3 && exit_code != 4 && exit_code != 5)
    finding(target, "undocumented exit code " + std::to_string(exit_code), err);
  if (exit_code != 0 && err.empty()) finding(target, "failed without a word on stderr", err);
  for (std::size_t at = 0; at < err.size();) {
    std::size_t end = err.find('\n', at);
    if (end == std::string_view::npos) finding(target, "stderr does not end a line", err);
    const std::string_view line = err.substr(at, end - at);
    if (!line.starts_with("gputopo: ")) finding(target, "a stderr line without \"gputopo: \"", err);
    if (line.starts_with("gputopo: unexpected error")) finding(target, "an unexpected error", err);
    at = end + 1;
  }
}

void expect_json_or_nothing(std::string_view target, std::string_view out) {
  if (!out.empty() && !nlohmann::json::accept(out)) finding(target, "stdout is not JSON", out);
}

}  // namespace gputopo::fuzz
