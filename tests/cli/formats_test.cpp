// The report formats of --format (docs/formats.md), written by the built binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gputopo_process.hpp"

namespace gputopo::test {
namespace {

using nlohmann::json;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const json& ours() {
  static const json j = json::parse(gputopo({"--sim", "toy", "--json", "-q"}).out);
  return j;
}

const json& mt4g() {
  static const json j = json::parse(gputopo({"--sim", "toy", "--format", "mt4g", "-q"}).out);
  return j;
}

// What sys-sage's MT4G v1 parser reads without a check: a missing one makes it throw.
void expect_what_sys_sage_requires(const json& m) {
  for (const char* key : {"name", "vendor"}) EXPECT_TRUE(m["general"][key].is_string()) << key;
  EXPECT_TRUE(m["general"]["computeCapability"]["major"].is_number_integer());
  EXPECT_TRUE(m["general"]["clockRate"]["value"].is_number_integer());
  for (const char* key :
       {"multiProcessorCount", "numberOfCoresPerMultiProcessor", "maxThreadsPerBlock", "warpSize",
        "maxThreadsPerMultiProcessor", "maxBlocksPerMultiProcessor"})
    EXPECT_TRUE(m["compute"][key].is_number_integer()) << key;
  const json& memory = m["memory"];
  EXPECT_TRUE(memory["main"]["totalGlobalMem"]["value"].is_number_integer());
  EXPECT_TRUE(memory["l2"]["size"]["value"].is_number_integer());
  for (const char* key : {"sharedMemPerBlock", "sharedMemPerMultiProcessor"})
    EXPECT_TRUE(memory["shared"][key]["value"].is_number_integer()) << key;
  for (const char* level : {"main", "l2"})
    if (memory[level].contains("latency")) {
      EXPECT_TRUE(memory[level]["readBandwidth"]["value"].is_number()) << level;
      EXPECT_TRUE(memory[level]["writeBandwidth"]["value"].is_number()) << level;
    }
  EXPECT_TRUE(memory["constant"]["totalConstMem"]["value"].is_number_integer());
}

TEST(Mt4gFormat, HoldsEverythingSysSageRequires) {
  expect_what_sys_sage_requires(mt4g());
  EXPECT_TRUE(mt4g()["meta"]["simulated"].get<bool>());
}

// The export of a real H100 (scripts/device-outputs.sh, docs/results/h100/outputs/).
TEST(Mt4gFormat, H100ExportHoldsEverythingSysSageRequires) {
  const json m =
      json::parse(read_file(std::string(GPUTOPO_RESULTS_DIR) + "/h100/outputs/mt4g.json"));
  expect_what_sys_sage_requires(m);
  EXPECT_FALSE(m["meta"]["simulated"].get<bool>());
  EXPECT_EQ(m["general"]["name"], "NVIDIA H100 80GB HBM3");
}

TEST(Mt4gFormat, CarriesGputoposValuesInMt4gsUnits) {
  const json& m = mt4g();
  const json& o = ours();
  EXPECT_EQ(m["compute"]["multiProcessorCount"], o["compute"]["smCount"]["value"]);
  EXPECT_EQ(m["memory"]["l1"]["size"]["size"], o["memory"]["l1"]["size"]["value"]);
  EXPECT_EQ(m["memory"]["l1"]["size"]["confidence"], o["memory"]["l1"]["size"]["confidence"]);
  EXPECT_DOUBLE_EQ(m["memory"]["l1"]["latency"]["mean"].get<double>(),
                   o["memory"]["l1"]["latency"]["value"].get<double>());
  EXPECT_NEAR(m["memory"]["main"]["readBandwidth"]["value"].get<double>(),
              o["memory"]["dram"]["readBandwidth"]["value"].get<double>() * 1e9 / (1 << 30), 1e-6);
  EXPECT_EQ(m["general"]["clockRate"]["value"].get<double>(),
            o["device"]["smClockMax"]["value"].get<double>() * 1000);
}

// On an AMD GPU, MT4G's AMD keys: the scalar L1 with the CU groups sharing one, the L2 count,
// the SIMDs per CU (the simulated MI210: pairs of CUs, one L2).
TEST(Mt4gFormat, WritesMt4gsAmdKeys) {
  const ProcessResult r =
      gputopo({"--sim", "mi210", "--format", "mt4g", "-q", "--only", "scalarL1,l2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json m = json::parse(r.out);
  EXPECT_EQ(m["general"]["vendor"], "AMD");
  EXPECT_EQ(m["compute"]["warpSize"], 64);
  EXPECT_EQ(m["compute"]["numSIMDsPerCU"], 4);
  const json& scalar = m["memory"]["scalarL1"];
  EXPECT_EQ(scalar["size"]["size"], 16384);
  ASSERT_TRUE(scalar["sharedBetween"].is_array());
  std::size_t cus = 0;
  for (const auto& group : scalar["sharedBetween"]) cus += group.size();
  EXPECT_EQ(cus, 104u);
  EXPECT_EQ(scalar["uniqueAmount"], scalar["sharedBetween"].size());
  EXPECT_EQ(m["memory"]["l2"]["amount"], 1);
}

TEST(MarkdownFormat, OneTablePerGroupWithProvenance) {
  const ProcessResult r = gputopo({"--sim", "toy", "--format", "markdown", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part :
       {"# gputopo ", "> **Simulated GPU**", "## General", "## Compute", "## Memory: L1",
        "| Attribute | Value | Source |", "| Size | ", "[measured "})
    EXPECT_NE(r.out.find(part), std::string::npos) << part;
  std::size_t rows = 0;
  for (std::size_t at = r.out.find("\n|"); at != std::string::npos; at = r.out.find("\n|", at + 1))
    ++rows;
  EXPECT_GT(rows, 40u);
}

TEST(TreeCommand, DrawsTheTlbLevelsOnceForTheGpuNotUnderEachSm) {
  const ProcessResult r = gputopo({"--sim", "tlb-2level", "-q", "tree", "--only", "tlb,l1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  TLB: levels 2, page 64 KiB\n    TLB 1: entries 16, reach 1 MiB"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("SM: L1 12 KiB + TLB"), std::string::npos) << r.out;
}

TEST(TreeCommand, DrawsTheDiscoveredLayoutAndKeepsJsonForTheOutputFile) {
  char dir[] = "/tmp/gputopo-tree-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string file = std::string(dir) + "/r.json";
  const ProcessResult r =
      gputopo({"--sim", "h100-sxm", "-q", "tree", "--only", "layout", "-o", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPU 0: NVIDIA H100"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" x GPC (18 SMs) [9 x TPC [2 x SM"), std::string::npos) << r.out;
  const json saved = json::parse(read_file(file));
  EXPECT_EQ(saved["run"]["command"], "tree");
  const ProcessResult full =
      gputopo({"--sim", "h100-sxm", "-q", "tree", "--full", "--only", "layout"});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_NE(full.out.find("\n      TPC 0\n        SM 0"), std::string::npos) << full.out;
  EXPECT_NE(full.out.find("        SM 131"), std::string::npos) << full.out;
  EXPECT_EQ(gputopo({"--sim", "toy", "tree", "--json"}).exit_code, 2);
  EXPECT_EQ(gputopo({"--sim", "toy", "tree", "--format", "text"}).exit_code, 2);
  std::remove(file.c_str());
  rmdir(dir);
}

TEST(Formats, ChoiceIsCheckedAndAppliesToTheOutputFile) {
  EXPECT_EQ(gputopo({"--sim", "toy", "--format", "bogus"}).exit_code, 2);
  EXPECT_EQ(gputopo({"--sim", "toy", "--json", "--format", "text"}).exit_code, 2);
  EXPECT_EQ(gputopo({"list", "--sim", "toy", "--format", "json"}).exit_code, 2);
  const std::string file = ::testing::TempDir() + "gputopo-formats-" + std::to_string(::getpid());
  const ProcessResult info = gputopo({"info", "--sim", "toy", "--format", "mt4g", "-o", file});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_EQ(json::parse(info.out)["compute"]["warpSize"], 32);
  EXPECT_EQ(json::parse(read_file(file)), json::parse(info.out));
  std::remove(file.c_str());
}

}  // namespace
}  // namespace gputopo::test

namespace gputopo::test {
namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// `report` runs the main job (or answers from a recording) and writes the HTML page to -o, the
// summary to stdout; from the recording it draws the same plots as the run did.
TEST(ReportCli, PageFromTheRunAndFromItsRecordingHaveTheSamePlots) {
  const auto live = temp_file("live.html").string();
  const auto replayed = temp_file("replayed.html").string();
  const auto raw = temp_file("report-raw").string();
  const auto run =
      gputopo({"report", "--sim", "toy", "--only", "l1", "-q", "--raw", raw, "-o", live});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("SIMULATED"), std::string::npos);  // the text summary
  const auto again = gputopo({"report", raw, "--only", "l1", "-q", "-o", replayed});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const std::string a = read_file(live);
  const std::string b = read_file(replayed);
  EXPECT_EQ(a.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_GE(count_of(a, "<canvas data-plot="), 5u);
  EXPECT_EQ(count_of(a, "<canvas data-plot="), count_of(b, "<canvas data-plot="));
  const auto to_stdout = gputopo({"report", raw, "--only", "l1", "-q"});
  EXPECT_EQ(to_stdout.out.rfind("<!DOCTYPE html>", 0), 0u);
}

TEST(ReportCli, OptionsThatDoNotApplyAreOneLineAndExitTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {"report", "--sim", "toy", "--json"},
      {"report", "--sim", "toy", "--format", "text"},
      {"report", "/nonexistent/recording"},
      {"report", "-d", "all"}};
  for (const auto& args : cases) {
    expect_one_line_error(gputopo(args), 2);
  }
}

}  // namespace
}  // namespace gputopo::test
