#include <atomic>
#include <sstream>
#include <string>
#include <vector>

#include "checks.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "targets.hpp"

namespace gputopo::fuzz {
namespace {

constexpr std::size_t kMaxArguments = 64;

std::vector<std::string> arguments(std::string_view input) {
  std::vector<std::string> args = {"gputopo"};
  for (std::size_t at = 0; at < input.size() && args.size() <= kMaxArguments;) {
    const std::size_t end = std::min(input.find('\n', at), input.size());
    args.emplace_back(input.substr(at, end - at));
    at = end + 1;
  }
  return args;
}

}  // namespace

void fuzz_cli(std::string_view input) {
  const std::vector<std::string> args = arguments(input);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  cli::ParseResult parsed =
      cli::parse_command_line(static_cast<int>(argv.size()), argv.data(), out, err);
  if (!parsed.options) {
    if (parsed.exit_code == 0 && !err.str().empty())
      throw Finding("cli: --help or --version wrote to stderr:\n" + err.str());
    expect_clean_exit("cli", parsed.exit_code, err.str());
    if (parsed.exit_code != 0 && err.str().find('\n') + 1 != err.str().size())
      throw Finding("cli: a usage error of more than one line:\n" + err.str());
    return;
  }
  cli::Options options = *parsed.options;
  // The discovery runs too long for a fuzzer (the recording target runs it); -o is dropped so
  // that the fuzzer writes no files outside its scratch directory.
  if (options.command != cli::Command::Info && options.command != cli::Command::List) return;
  options.output.reset();
  const std::atomic<bool> not_interrupted{false};
  const int code = cli::run_command(options, out, err, not_interrupted);
  expect_clean_exit("cli", code, err.str());
  if (options.json) expect_json_or_nothing("cli", out.str());
}

}  // namespace gputopo::fuzz
