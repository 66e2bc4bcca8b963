// The built binary, run as a user runs it: exit codes, one-line errors, outputs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../report/schema_validator.hpp"
#include "gputopo_process.hpp"

namespace gputopo::test {
namespace {
namespace fs = std::filesystem;

bool host_has_gpu() {
  static const bool has = gputopo({"list"}).exit_code == 0;
  return has;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

nlohmann::json parse_json(const std::string& text) { return nlohmann::json::parse(text); }

nlohmann::json read_json(const fs::path& p) { return load_json_file(p.string()); }

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

TEST(Cli, TheBinaryDoesNotLinkHwlocItLoadsItAtRunTime) {
  const ProcessResult ldd = run_process({"/usr/bin/ldd", GPUTOPO_BINARY}, 30);
  if (ldd.exit_code != 0) GTEST_SKIP() << "ldd cannot read the binary: " << ldd.err;
  EXPECT_EQ(ldd.out.find("hwloc"), std::string::npos) << ldd.out;
  EXPECT_NE(ldd.out.find("libc.so"), std::string::npos) << ldd.out;
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

TEST(Cli, SimulatedInfoVerboseTextHasBannerAndGroups) {
  ProcessResult r = gputopo({"--sim", "h100-sxm", "info", "-v"});
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

// No usage error touches an existing output: every option is checked before -o or --raw is opened.
TEST(Cli, UsageErrorsLeaveExistingOutputsAlone) {
  const fs::path keep = temp_file("keep.json");
  const fs::path dir = temp_file("keep-raw");
  fs::remove_all(dir);
  ASSERT_EQ(gputopo({"--sim", "toy", "-q", "--only", "l1", "--raw", dir.string()}).exit_code, 0);
  const auto recorded = std::distance(fs::directory_iterator(dir), fs::directory_iterator());
  { std::ofstream(keep) << "keep"; }
  expect_one_line_error(gputopo({"--sim", "toy", "--only", "bogus", "-o", keep.string()}), 2,
                        "bogus");
  expect_one_line_error(gputopo({"--sim", "toy", "--only", "bogus", "--raw", dir.string()}), 2,
                        "bogus");
  expect_one_line_error(gputopo({"--sim", "toy", "info", "--raw", dir.string()}), 2, "--raw");
  expect_one_line_error(gputopo({"--sim", "toy", "list", "-o", keep.string()}), 2, "list");
  EXPECT_EQ(read_text(keep), "keep");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), recorded);
  ProcessResult replay = gputopo({"analyze", dir.string(), "-q", "--only", "l1"});
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
  fs::remove_all(dir);
  fs::remove(keep);
}

// -o never replaces what is not a regular, writable file, and is refused before anything runs.
TEST(Cli, OutputThatIsNotAWritableRegularFileIsRefused) {
  const fs::path link = temp_file("link.json");
  const fs::path target = temp_file("target.json");
  const fs::path read_only = temp_file("read-only.json");
  {
    std::ofstream(target) << "target";
    std::ofstream(read_only) << "read-only";
  }
  fs::remove(link);
  fs::create_symlink(target, link);
  fs::permissions(read_only, fs::perms::owner_read);
  expect_one_line_error(gputopo({"--sim", "toy", "info", "-o", link.string()}), 2, "symbolic link");
  expect_one_line_error(gputopo({"--sim", "toy", "info", "-o", read_only.string()}), 2,
                        "read-only");
  expect_one_line_error(gputopo({"--sim", "toy", "info", "-o", "/dev/null"}), 2,
                        "not a regular file");
  expect_one_line_error(
      gputopo({"--sim", "toy", "-o",
               (fs::path(::testing::TempDir()) / std::string(250, 'x')).string()}),
      2, "File name too long");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text(target), "target");
  EXPECT_EQ(read_text(read_only), "read-only");
  fs::remove(link);
  fs::remove(target);
  fs::remove(read_only);
}

TEST(Cli, StdoutThatCannotBeWrittenIsAnError) {
  const auto shell = [](const std::string& line) {
    return run_process({"/bin/sh", "-c", std::string("exec ") + GPUTOPO_BINARY + " " + line}, 60);
  };
  ProcessResult full = shell("--sim toy info --json > /dev/full");
  EXPECT_EQ(full.exit_code, 2) << full.err;
  EXPECT_NE(full.err.find("cannot write to stdout"), std::string::npos) << full.err;
  ProcessResult closed = shell("--sim toy info >&-");
  EXPECT_EQ(closed.exit_code, 2) << closed.err;
  EXPECT_NE(closed.err.find("stdout is closed"), std::string::npos) << closed.err;
}

TEST(Cli, ArgumentsThatAreNotUtf8AreReportedReplaced) {
  const fs::path file = temp_file("not-utf8-\xff.json");
  ProcessResult r = gputopo({"--sim", "toy", "info", "--json", "-o", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = parse_json(r.out);
  EXPECT_NE(j["run"]["commandLine"].dump().find("\xEF\xBF\xBD"), std::string::npos)
      << j["run"]["commandLine"].dump();
  EXPECT_EQ(read_json(file), j);
  fs::remove(file);
}

TEST(Cli, SeedsAndNumbersOutOfRangeAreUsageErrors) {
  expect_one_line_error(gputopo({"--sim", "toy", "--seed", "-1", "info"}), 2, "--seed -1");
  expect_one_line_error(gputopo({"--sim", "toy", "--seed", "18446744073709551616", "info"}), 2);
  expect_one_line_error(gputopo({"-d", "abc", "info"}), 2, "-d abc: expected a GPU index");
  expect_one_line_error(gputopo({"--time-budget", "nan"}), 2, "positive number of seconds");
}

TEST(Cli, OutOfMemoryIsOneLineNamingTheInput) {
#ifdef GPUTOPO_SANITIZED
  GTEST_SKIP() << "the sanitizers reserve more address space than the limit leaves";
#endif
  const fs::path config = temp_file("big-l2.json");
  nlohmann::json toy = read_json(fs::path(GPUTOPO_PRESET_DIR) / "toy.json");
  toy["l2"]["size_bytes"] = 1 << 28;
  toy["l2"]["line_bytes"] = 128;
  toy["l2"]["ways"] = 16;
  toy["l2"].erase("sector_bytes");
  toy["l2"].erase("fetch_bytes");
  std::ofstream(config) << toy.dump();
  ProcessResult r = run_process({"/bin/sh", "-c",
                                 std::string("ulimit -v 30000; exec ") + GPUTOPO_BINARY +
                                     " -q --only l1 --sim " + config.string()});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(r.err, "gputopo: out of memory while running discover on --sim " + config.string() +
                       ": free memory, or give a smaller simulated GPU\n");
  fs::remove(config);
}

TEST(Cli, AnotherDeviceIndexWithoutGpuIsNoDevice) {
  if (host_has_gpu()) GTEST_SKIP() << "this host has a GPU";
  ProcessResult r = gputopo({"-d", "3"});
  expect_one_line_error(r, 3, "GPU 3 does not exist");
  EXPECT_EQ(r.err.find("SIMULATED"), std::string::npos) << r.err;
}

TEST(Cli, AnInterruptedRecordingSaysSoAndReplaysAsCutShort) {
  const fs::path dir = temp_file("interrupted-raw");
  fs::remove_all(dir);
  ProcessResult r = gputopo({"--sim", "h100-sxm", "--raw", dir.string()}, "gputopo: [2/");
  ASSERT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(read_json(dir / "manifest.json")["complete"], false);
  ProcessResult replay = gputopo({"analyze", dir.string(), "-q", "--json"});
  EXPECT_EQ(replay.exit_code, 4) << replay.err;
  EXPECT_NE(replay.err.find("the run interrupted"), std::string::npos) << replay.err;
  const nlohmann::json j = parse_json(replay.out);
  EXPECT_EQ(j["run"]["status"], "interrupted");
  EXPECT_NE(j["warnings"].dump().find("recording cut short"), std::string::npos) << j["warnings"];
  fs::remove_all(dir);
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
