#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "../golden/whole_report.hpp"
#include "gputopo_process.hpp"

namespace gputopo::test {
namespace {

const std::string kGolden = std::string(GPUTOPO_TEST_DATA) + "/golden/";

nlohmann::ordered_json read_report(const std::string& file) {
  std::ifstream in(file);
  return nlohmann::ordered_json::parse(in);
}

std::string write_report(const std::string& name, const nlohmann::ordered_json& report) {
  const auto path = temp_file(name).string();
  std::ofstream(path) << report.dump();
  return path;
}

// The golden discovery report of `preset`, whole, in a file named like it (<preset>.json).
std::string golden_report(const std::string& preset) {
  static std::map<std::string, std::string> written;
  if (const auto it = written.find(preset); it != written.end()) return it->second;
  const auto dir = temp_file("whole-goldens");
  std::filesystem::create_directories(dir);
  const auto path = (dir / (preset + ".json")).string();
  std::ofstream(path) << cli::golden::whole_report(kGolden, preset).dump();
  return written[preset] = path;
}

TEST(CompareCli, TwoModelsDifferAndExitSix) {
  const auto r = gputopo({"compare", golden_report("h100-sxm"), golden_report("h200")});
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.out.find("2 GPUs (h100-sxm, h200)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device.name: NVIDIA H100 80GB HBM3 (reference); h200 "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Outliers: h200"), std::string::npos) << r.out;
}

TEST(CompareCli, OneSlowGpuOfThreeIsTheOutlier) {
  auto report = read_report(golden_report("h100-sxm"));
  const auto a = write_report("a.json", report);
  const auto c = write_report("c.json", report);
  auto& bandwidth = report["memory"]["dram"]["readBandwidth"];
  const double slow = 0.85 * bandwidth["value"].get<double>();
  bandwidth["value"] = slow;
  bandwidth["interval"] = {0.99 * slow, 1.01 * slow};
  const auto b = write_report("b.json", report);
  const auto out = temp_file("comparison.json").string();
  const auto r = gputopo({"compare", a, b, c, "--json", "-o", out});
  ASSERT_EQ(r.exit_code, 6) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["differences"].size(), 1u) << r.out;
  EXPECT_EQ(j["differences"][0]["attribute"], "memory.dram.readBandwidth");
  EXPECT_NEAR(j["differences"][0]["members"][0]["relative"].get<double>(), -0.15, 1e-9);
  const nlohmann::json outlier = {{"member", std::filesystem::path(b).stem().string()},
                                  {"differences", 1}};
  EXPECT_EQ(j["outliers"], nlohmann::json::array({outlier}));
  EXPECT_EQ(read_report(out), nlohmann::ordered_json::parse(r.out));
  // A tolerance past the difference leaves the GPUs alike.
  EXPECT_EQ(gputopo({"compare", a, b, c, "--tolerance", "20"}).exit_code, 0);
}

TEST(CompareCli, SameReportTwiceIsAlikeAndNamedByPath) {
  const auto file = golden_report("a100");
  const auto r = gputopo({"compare", file, file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 GPUs (" + file + ", " + file + ")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No outliers"), std::string::npos) << r.out;
}

TEST(CompareCli, BadInputIsOneLineAndExitTwo) {
  const auto not_json = temp_file("broken.json").string();
  std::ofstream(not_json) << "{ not json";
  const std::vector<std::vector<std::string>> cases = {
      {"compare", golden_report("a100"), "/nonexistent/report.json"},
      {"compare", golden_report("a100"), not_json},
      {"compare", golden_report("a100"), kGolden + "a100.txt"},
      {"compare", golden_report("a100")},
      {"compare", golden_report("a100"), golden_report("h200"), "--tolerance", "x"},
      {"compare", golden_report("a100"), golden_report("h200"), "--sim", "h200"},
      {"compare", golden_report("a100"), golden_report("h200"), "--depth", "full"},
      {"compare"}};
  for (const auto& args : cases) {
    expect_one_line_error(gputopo(args), 2);
  }
}

// JSON that is not a gputopo report (issue 32, row 15): exit 2, naming the file.
TEST(CompareCli, JsonThatIsNotAReportIsExitTwoNamingTheFile) {
  const std::vector<std::string> documents = {R"({"device": "x", "memory": "y"})",
                                              R"({"device": {}, "memory": {}})",
                                              R"({"device": null, "memory": null})",
                                              "null",
                                              "[]",
                                              "[1, 2]",
                                              "{}",
                                              "3",
                                              R"("report")",
                                              R"({"gpus": [null]})",
                                              R"({"gpus": [{"device": {}, "memory": {}}]})",
                                              R"({"device": {"name": "x"}, "memory": {}})",
                                              R"({"device": [], "memory": []})"};
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const auto file = temp_file("not-a-report-" + std::to_string(i) + ".json").string();
    std::ofstream(file) << documents[i];
    const auto compare = gputopo({"compare", golden_report("a100"), file});
    expect_one_line_error(compare, 2, file);
    const auto check = gputopo({"--sim", "toy", "-q", "check", "--reference", file});
    expect_one_line_error(check, 2, file);
  }
}

}  // namespace
}  // namespace gputopo::test

namespace gputopo::test {
namespace {

const std::string kPresets = std::string(GPUTOPO_PRESET_DIR) + "/";

TEST(CheckCli, SameSimulatedGpuAgreesWithItsReport) {
  // The L1 bandwidth has no interval, and the reference (one report) no spread: only the floor
  // decides on it, above the simulator's 3 % jitter.
  const auto r = gputopo({"--sim", "h100-sxm", "-q", "--only", "l1", "check", "--reference",
                          golden_report("h100-sxm"), "--tolerance", "4"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("2 GPUs (reference, this GPU)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(beyond 4.5 sd and 4 %)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No outliers"), std::string::npos) << r.out;
}

TEST(CheckCli, LowerClockLimitIsFoundAgainstTheReference) {
  auto preset = read_report(kPresets + "h100-sxm.json");
  preset["device"]["sm_clock_max_mhz"] = 1755;
  const auto slow = write_report("slow-h100.json", preset);
  const auto report = temp_file("slow-h100-report.json").string();
  const auto r = gputopo({"--sim", slow, "-q", "--only", "l1", "-o", report, "check", "--json",
                          "--reference", golden_report("h100-sxm")});
  ASSERT_EQ(r.exit_code, 6) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  bool clock = false;
  for (const auto& d : j["differences"])
    if (d["attribute"] == "device.smClockMax") {
      clock = true;
      EXPECT_EQ(d["consensus"], 1980);
      EXPECT_EQ(d["members"][0]["value"], 1755);
    }
  EXPECT_TRUE(clock) << r.out;
  // -o still takes this GPU's own report.
  EXPECT_EQ(read_report(report)["device"]["smClockMax"]["value"], 1755);
}

TEST(CheckCli, BuiltInReferenceOfTheModelOrAOneLineError) {
  // The simulated H100 against the real H100 of docs/results: it differs (its latencies are a
  // model's), and says against what.
  const auto h100 = gputopo({"--sim", "h100-sxm", "-q", "--only", "l1", "check"});
  EXPECT_EQ(h100.exit_code, 6) << h100.err;
  EXPECT_NE(h100.out.find("2 GPUs (reference h100, this GPU)"), std::string::npos) << h100.out;
  const auto a100 = gputopo({"--sim", "a100", "-q", "check"});
  EXPECT_EQ(a100.exit_code, 2);
  EXPECT_EQ(a100.err,
            "gputopo: no built-in reference for NVIDIA A100-SXM4-40GB: give --reference FILE, a "
            "report of a GPU of this model\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--sim", "h100-sxm", "-d", "all", "check"},
        {"--sim", "h100-sxm", "check", "--format", "text"},
        {"--sim", "h100-sxm", "check", "--reference", "/nonexistent.json"}}) {
    const auto r = gputopo(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace gputopo::test

namespace gputopo::test {
namespace {

// --fleet's own errors; the run under mpirun is Fleet.MpiRanksFindTheSlowGpu.
TEST(FleetCli, WithoutThePluginOrWithOptionsThatDoNotApplyIsOneLine) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--fleet", "--sim", "toy", "info"},
        {"--fleet", "--sim", "toy", "-d", "all"},
        {"--fleet", "--sim", "toy", "--raw", temp_file("fleet-raw").string()},
        {"--fleet", "--sim", "toy", "--format", "markdown"}}) {
    expect_one_line_error(gputopo(args), 2);
  }
  ::setenv("GPUTOPO_MPI_PLUGIN", "/nonexistent/libgputopo_mpi.so", 1);
  const auto r = gputopo({"--fleet", "--sim", "toy", "-q"});
  ::unsetenv("GPUTOPO_MPI_PLUGIN");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err,
            "gputopo: --fleet needs gputopo's MPI plugin: libgputopo_mpi.so not found "
            "(/nonexistent/libgputopo_mpi.so): build gputopo where Open MPI's libopenmpi-dev is "
            "installed\n");
}

}  // namespace
}  // namespace gputopo::test
