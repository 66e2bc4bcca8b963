// The built binary, run as a user runs it: exit codes, one-line errors, outputs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../report/schema_validator.hpp"
#include "run_process.hpp"

namespace gputopo::test {
namespace {
namespace fs = std::filesystem;

ProcessResult gputopo(std::vector<std::string> args, const std::string& interrupt_after = {}) {
  args.insert(args.begin(), GPUTOPO_BINARY);
  return run_process(args, 120, interrupt_after);
}

bool host_has_gpu() {
  static const bool has = gputopo({"list"}).exit_code == 0;
  return has;
}

void expect_one_line_error(const ProcessResult& r, int code, const std::string& contains = {}) {
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("gputopo: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  if (!contains.empty()) {
    EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
  }
}

nlohmann::json parse_json(const std::string& text) { return nlohmann::json::parse(text); }

nlohmann::json read_json(const fs::path& p) { return load_json_file(p.string()); }

void expect_conforms(const nlohmann::json& report) {
  SchemaValidator schema(load_json_file(GPUTOPO_SCHEMA_FILE));
  std::string all;
  for (const auto& e : schema.validate(report)) all += e + "\n";
  EXPECT_TRUE(all.empty()) << all;
}

fs::path temp_file(const std::string& name) {
  return fs::path(::testing::TempDir()) / ("gputopo-cli-" + std::to_string(getpid()) + "-" + name);
}

TEST(Cli, HelpAndVersion) {
  ProcessResult help = gputopo({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("list"), std::string::npos);
  ProcessResult version = gputopo({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("gputopo 0.", 0), 0u) << version.out;
}

TEST(Cli, UnknownFlagsAndBadValuesAreUsageErrors) {
  expect_one_line_error(gputopo({"--bogus"}), 2, "--bogus");
  expect_one_line_error(gputopo({"info", "--bogus"}), 2, "--bogus");
  expect_one_line_error(gputopo({"-d", "abc", "info"}), 2);
  expect_one_line_error(gputopo({"-d", "-3", "info"}), 2);
  expect_one_line_error(gputopo({"--seed", "many"}), 2);
  expect_one_line_error(gputopo({"frobnicate"}), 2, "frobnicate");
  expect_one_line_error(gputopo({"--sim", "h100-sxm", "-o", "/nonexistent-gputopo/r.json"}), 2,
                        "does not exist");
}

TEST(Cli, WithoutDriverInfoAndListExitThreeSayingWhatToDo) {
  if (host_has_gpu()) GTEST_SKIP() << "this host has a GPU";
  expect_one_line_error(gputopo({"info"}), 3, "--sim");
  expect_one_line_error(gputopo({"list"}), 3, "--sim");
  expect_one_line_error(gputopo({"info", "--json"}), 3, "--sim");
  expect_one_line_error(gputopo({"-d", "5", "info"}), 3);
}

TEST(Cli, DeviceIndexOutOfRangeSaysHowManyExist) {
  ProcessResult r = gputopo({"-d", "4096", "info"});
  if (host_has_gpu()) {
    expect_one_line_error(r, 3, "does not exist: this host has");
  } else {
    expect_one_line_error(r, 3);
  }
  expect_one_line_error(gputopo({"--sim", "h100-sxm", "-d", "1", "info"}), 3,
                        "the simulated host has 1 GPU");
}

TEST(Cli, UnknownSimPresetIsAUsageError) {
  expect_one_line_error(gputopo({"--sim", "no-such-gpu", "info"}), 2, "no-such-gpu");
}

TEST(Cli, SimulatedInfoTextHasBannerAndGroups) {
  ProcessResult r = gputopo({"--sim", "h100-sxm", "info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("####", 0), 0u);
  EXPECT_NE(r.out.find("SIMULATED GPU"), std::string::npos);
  for (const char* s : {"\nGeneral\n", "\nCompute\n", "SM count", "L2 size", "50 MiB"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(Cli, SimulatedInfoJsonToStdoutAndFileConformsToTheSchema) {
  const fs::path file = temp_file("info.json");
  ProcessResult r = gputopo({"--sim", "h100-sxm", "info", "--json", "-o", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = parse_json(r.out);
  expect_conforms(j);
  EXPECT_EQ(j["run"]["simulated"], true);
  EXPECT_EQ(j["device"]["simulated"]["value"], true);
  EXPECT_EQ(j["run"]["command"], "info");
  EXPECT_EQ(j["run"]["sim"]["preset"], "h100-sxm");
  EXPECT_EQ(j["compute"]["smCount"]["value"], 132);
  nlohmann::json written = read_json(file);
  expect_conforms(written);
  EXPECT_EQ(written["device"], j["device"]);
  fs::remove(file);
}

TEST(Cli, SimulatedListIsOneLine) {
  ProcessResult r = gputopo({"--sim", "h100-sxm", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("GPU 0: ", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << r.out;
  EXPECT_NE(r.out.find("SIMULATED"), std::string::npos);
}

TEST(Cli, MainJobWithoutGpuFallsBackToTheSimulatorAndSaysSo) {
  if (host_has_gpu()) GTEST_SKIP() << "this host has a GPU";
  ProcessResult r = gputopo({"--json"});
  ASSERT_FALSE(r.timed_out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("running on the SIMULATED GPU 'h100-sxm'"), std::string::npos) << r.err;
  nlohmann::json j = parse_json(r.out);
  expect_conforms(j);
  EXPECT_EQ(j["run"]["simulated"], true);
  EXPECT_EQ(j["run"]["command"], "discover");
  EXPECT_EQ(j["run"]["status"], "complete");
}

TEST(Cli, OnlyRunsTheNamedElementsAndRejectsUnknownOnes) {
  const fs::path out = temp_file("only.json");
  ProcessResult r = gputopo({"--sim", "toy", "-q", "--only", "constantL1", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = read_json(out);
  EXPECT_TRUE(report["memory"].contains("constantL1"));
  EXPECT_TRUE(report["memory"]["constantL1"].contains("size"));
  // What the driver says about L2 is always there; nothing of it was measured.
  EXPECT_FALSE(report["memory"].contains("l1"));
  EXPECT_FALSE(report["memory"]["l2"].contains("segmentSize"));
  fs::remove(out);
  expect_one_line_error(gputopo({"--sim", "toy", "--only", "l9"}), 2, "l9");
}

TEST(Cli, AnalyzeReplaysARecordingToTheSameFindings) {
  const fs::path dir = temp_file("analyze-raw");
  const fs::path live = temp_file("live.json");
  const fs::path replayed = temp_file("replayed.json");
  fs::remove_all(dir);
  ASSERT_EQ(gputopo({"--sim", "toy", "-q", "--raw", dir.string(), "-o", live.string()}).exit_code,
            0);
  ProcessResult r = gputopo({"analyze", dir.string(), "-q", "-o", replayed.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(live)["memory"], read_json(replayed)["memory"]);
  fs::remove_all(dir);
  fs::remove(live);
  fs::remove(replayed);
  expect_one_line_error(gputopo({"analyze", dir.string()}), 2, "analyze");
  expect_one_line_error(gputopo({"--sim", "toy", "analyze", dir.string()}), 2, "--sim");
}

TEST(Cli, RawRecordsEveryRequestAndABadDirectoryIsAUsageError) {
  const fs::path dir = temp_file("raw");
  fs::remove_all(dir);
  ProcessResult r = gputopo({"--sim", "toy", "-q", "--raw", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  ASSERT_TRUE(fs::is_directory(dir));
  EXPECT_GT(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
  expect_one_line_error(gputopo({"--sim", "toy", "--raw", "/proc/gputopo-cannot-be-here", "info"}),
                        2, "--raw");
}

TEST(Cli, InterruptKeepsWhatWasMeasuredAndExitsFour) {
  const fs::path file = temp_file("interrupted.json");
  // Progress lines go to stderr when it is not a terminal; interrupt once the second phase began.
  ProcessResult r = gputopo({"--sim", "h100-sxm", "-o", file.string()}, "gputopo: [2/");
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("partial results were written to " + file.string()), std::string::npos)
      << r.err;
  nlohmann::json j = read_json(file);
  expect_conforms(j);
  EXPECT_EQ(j["run"]["status"], "interrupted");
  EXPECT_GE(j["run"]["phases"].size(), 2u);
  EXPECT_NE(r.out.find("PARTIAL RESULTS"), std::string::npos);
  fs::remove(file);
}

}  // namespace
}  // namespace gputopo::test
