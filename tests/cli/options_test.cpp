#include "cli/options.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace gputopo::cli {
namespace {

struct Parsed {
  ParseResult result;
  std::string out;
  std::string err;
};

Parsed parse(std::vector<std::string> args) {
  args.insert(args.begin(), "gputopo");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  ParseResult r = parse_command_line(static_cast<int>(argv.size()), argv.data(), out, err);
  return {std::move(r), out.str(), err.str()};
}

TEST(Options, DefaultsRunTheMainJobOnGpu0) {
  Parsed p = parse({});
  ASSERT_TRUE(p.result.options);
  const Options& o = *p.result.options;
  EXPECT_EQ(o.command, Command::Discover);
  EXPECT_EQ(o.device, 0);
  EXPECT_FALSE(o.sim);
  EXPECT_FALSE(o.json);
  EXPECT_FALSE(o.output);
  EXPECT_FALSE(o.raw_dir);
  EXPECT_FALSE(o.quiet);
  EXPECT_EQ(o.argv, std::vector<std::string>{"gputopo"});
}

TEST(Options, DepthIsQuickUnlessFullIsAsked) {
  EXPECT_FALSE(parse({}).result.options->full_depth);
  EXPECT_FALSE(parse({"--depth", "quick"}).result.options->full_depth);
  EXPECT_TRUE(parse({"--depth", "full"}).result.options->full_depth);
  const Parsed bad = parse({"--depth", "deep"});
  EXPECT_EQ(bad.result.exit_code, 2);
  EXPECT_NE(bad.err.find("--depth deep: expected quick or full"), std::string::npos) << bad.err;
  EXPECT_EQ(parse({"info", "--depth", "full"}).result.exit_code, 2);
}

TEST(Options, GlobalOptionsBeforeOrAfterTheCommand) {
  for (auto args : {std::vector<std::string>{"-d", "2", "--json", "info"},
                    std::vector<std::string>{"info", "-d", "2", "--json"},
                    std::vector<std::string>{"--device", "2", "info", "--json"}}) {
    Parsed p = parse(args);
    ASSERT_TRUE(p.result.options) << p.err;
    EXPECT_EQ(p.result.options->command, Command::Info);
    EXPECT_EQ(p.result.options->device, 2);
    EXPECT_TRUE(p.result.options->json);
  }
}

TEST(Options, SimSeedQuietRawAndList) {
  Parsed p = parse({"--sim", "toy", "--seed", "18446744073709551615", "-q", "--raw", "/tmp/raw"});
  ASSERT_TRUE(p.result.options) << p.err;
  const Options& o = *p.result.options;
  EXPECT_EQ(o.command, Command::Discover);
  EXPECT_EQ(o.sim, "toy");
  EXPECT_EQ(o.seed, 18446744073709551615u);
  EXPECT_EQ(parse({"--sim", "toy", "list"}).result.options->command, Command::List);
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(o.raw_dir, "/tmp/raw");
}

TEST(Options, OutputInAWritableDirectory) {
  Parsed p = parse({"-o", ::testing::TempDir() + "/report.json"});
  ASSERT_TRUE(p.result.options) << p.err;
  EXPECT_EQ(p.result.options->output, ::testing::TempDir() + "/report.json");
}

TEST(Options, HelpAndVersionExitZeroOnStdout) {
  for (const char* flag : {"--help", "-h", "--version"}) {
    Parsed p = parse({flag});
    EXPECT_FALSE(p.result.options) << flag;
    EXPECT_EQ(p.result.exit_code, 0) << flag;
    EXPECT_FALSE(p.out.empty()) << flag;
    EXPECT_TRUE(p.err.empty()) << flag;
  }
  EXPECT_NE(parse({"--help"}).out.find("info"), std::string::npos);
  EXPECT_EQ(parse({"--version"}).out.rfind("gputopo ", 0), 0u);
}

TEST(Options, DiscoverySelectionCarveoutAndBudget) {
  Parsed p = parse({"--only", "l1,l2", "--carveout", "default", "--time-budget", "30"});
  ASSERT_TRUE(p.result.options) << p.err;
  EXPECT_EQ(p.result.options->only, (std::vector<std::string>{"l1", "l2"}));
  EXPECT_FALSE(p.result.options->carveout.has_value());
  EXPECT_EQ(p.result.options->time_budget_s, 30.0);
  Parsed q = parse({"--carveout", "25"});
  ASSERT_TRUE(q.result.options) << q.err;
  EXPECT_EQ(q.result.options->carveout, 25);
  EXPECT_EQ(parse({}).result.options->carveout, 0);
}

TEST(Options, UsageErrorsGiveOneLineAndExitTwo) {
  const std::vector<std::vector<std::string>> bad{
      {"--bogus"},
      {"-d", "abc"},
      {"-d", "-1"},
      {"--device"},
      {"--seed", "x"},
      {"--sim"},
      {"--sim", ""},
      {"-o"},
      {"frobnicate"},
      {"info", "list"},
      {"info", "extra"},
      {"--raw", ""},
      {"-o", "/nonexistent-gputopo-dir/r.json"},
      {"-o", "/"},
      {"--carveout", "101"},
      {"--carveout", "-1"},
      {"--carveout", "half"},
      {"--time-budget", "0"},
      {"--only"},
      {"-d", "3x"},
      {"--seed", "-1"},
      {"--seed", "18446744073709551616"},
      {"--time-budget", "abc"},
      {"--time-budget", "nan"},
      {"--time-budget", "inf"},
      {"--only", "bogus"},
      {"--only", "l1", "info"},
      {"--raw", "/tmp/raw", "info"},
      {"--time-budget", "5", "list"},
      {"-o", ::testing::TempDir() + "/list.json", "list"},
      {"-o", "/dev/null"},
      {"-o", ::testing::TempDir() + "/" + std::string(250, 'a')},
  };
  for (const auto& args : bad) {
    Parsed p = parse(args);
    std::string shown = args[0] + (args.size() > 1 ? " " + args[1] : "");
    EXPECT_FALSE(p.result.options) << shown;
    EXPECT_EQ(p.result.exit_code, 2) << shown;
    EXPECT_TRUE(p.out.empty()) << shown;
    ASSERT_FALSE(p.err.empty()) << shown;
    EXPECT_EQ(p.err.rfind("gputopo: ", 0), 0u) << p.err;
    EXPECT_EQ(p.err.find('\n'), p.err.size() - 1) << p.err;
    EXPECT_LT(p.err.size(), 600u) << p.err;
  }
}

// An argument's control characters are escaped in the error, which stays one line.
TEST(Options, ControlCharactersInArgumentsAreEscapedInTheError) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"-d", "1\r2"}, "-d 1\\r2: expected"},
      {{"--carveout", "5\n0"}, "--carveout 5\\n0: expected"},
      {{"--time-budget", "\x1b[2J"}, "--time-budget \\x1b[2J: expected"},
      {{"-o", "/nonexistent-gputopo-dir\n/r.json"}, "-o /nonexistent-gputopo-dir\\n/r.json: "},
      {{"--bogus\r"}, "--bogus"},
  };
  for (const auto& [args, expected] : cases) {
    Parsed p = parse(args);
    EXPECT_EQ(p.result.exit_code, 2) << p.err;
    EXPECT_EQ(p.err.find('\r'), std::string::npos) << p.err;
    EXPECT_EQ(p.err.find('\x1b'), std::string::npos) << p.err;
    EXPECT_EQ(p.err.find('\n'), p.err.size() - 1) << p.err;
    EXPECT_NE(p.err.find(expected), std::string::npos) << p.err;
  }
}

}  // namespace
}  // namespace gputopo::cli
