// gputopo -d all on the simulated hosts, run as a user runs it: the host document, its place after
// the GPUs' reports, the peer matrix against the configuration, a failing GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../report/schema_validator.hpp"
#include "gputopo_process.hpp"
#include "model/json_input.hpp"

namespace gputopo::test {
namespace {
namespace fs = std::filesystem;
using model::Json;

// The quickest probe keeps eight discoveries short; the links are measured whatever --only says.
const std::vector<std::string> kQuick = {"--only", "l1.line", "-q"};

Json host_json(const std::string& host, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--sim", host, "-d", "all", "--json"};
  args.insert(args.end(), kQuick.begin(), kQuick.end());
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult r = gputopo(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return model::parse_json_input(r.out);
}

void expect_valid(const Json& doc) {
  SchemaValidator schema(load_json_file(GPUTOPO_SCHEMA_FILE));
  const auto errors = schema.validate(doc);
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front());
}

TEST(HostCli, FourGpuHostReportsEveryGpuAndTwelvePairs) {
  const Json doc = host_json("hgx-a100-4");
  expect_valid(doc);
  EXPECT_EQ(doc["run"]["device"], "all");
  EXPECT_EQ(doc["run"]["status"], "complete");
  ASSERT_EQ(doc["gpus"].size(), 4u);
  const Json& host = doc["host"];
  EXPECT_EQ(host["gpuCount"], 4);
  EXPECT_EQ(host["identical"], Json::parse("[[0,1,2,3]]"));
  ASSERT_EQ(host["peers"].size(), 12u);
  for (const auto& p : host["peers"]) {
    EXPECT_EQ(p["link"]["type"], "NVLink");
    EXPECT_EQ(p["link"]["count"], 4);
    EXPECT_NEAR(p["readGBps"]["value"].get<double>(), 92, 92 * 0.05);
  }
  EXPECT_TRUE(host["outliers"].empty());
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(doc["gpus"][i]["run"]["device"], i);
    EXPECT_EQ(doc["gpus"][i]["run"]["status"], "complete");
    EXPECT_EQ(host["gpus"][i]["locality"]["numaNodes"], "0");
  }
  // Where the time went (issue 33): each discovery with its phases, the opening, the links.
  for (const auto& gpu : doc["gpus"]) {
    EXPECT_GT(gpu["run"]["durationSeconds"].get<double>(), 0);
    ASSERT_TRUE(gpu["run"]["phases"].is_array());
    EXPECT_FALSE(gpu["run"]["phases"].empty());
  }
  EXPECT_GE(doc["run"]["openSeconds"].get<double>(), 0);
  EXPECT_GE(host["linksSeconds"].get<double>(), 0);
  for (const auto& p : host["peers"]) EXPECT_GE(p["seconds"].get<double>(), 0);
  for (const auto& l : host["hostLinks"]) EXPECT_GE(l["seconds"].get<double>(), 0);
}

// One run of the 8-GPU host: the host document in -o FILE, and the first screen of a host on stdout
// (issue 34): identical GPUs folded into one summary, one matrix a peer figure, the host links in
// a table; at most 150 lines of 100 columns.
TEST(HostCli, EightGpuHostHasTheFullMatrixAndNumaDependence) {
  const fs::path file = fs::path(::testing::TempDir()) / "eight-gpu-host.json";
  std::vector<std::string> args = {"--sim", "dgx-h100", "-d", "all", "-o", file.string()};
  args.insert(args.end(), kQuick.begin(), kQuick.end());
  const ProcessResult r = gputopo(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  fs::remove(file);
  const Json doc = model::parse_json_input(text.str());
  expect_valid(doc);
  const Json& host = doc["host"];
  EXPECT_EQ(host["gpuCount"], 8);
  EXPECT_EQ(host["numaNodes"], Json::parse("[0,1]"));
  ASSERT_EQ(host["peers"].size(), 56u);
  for (const auto& p : host["peers"]) {
    EXPECT_EQ(p["link"]["count"], 18);
    EXPECT_EQ(p["link"]["generation"], 4);
    EXPECT_NEAR(p["bidirectionalGBps"]["value"].get<double>(), 740, 740 * 0.05);
  }
  for (const auto& l : host["hostLinks"]) {
    EXPECT_NEAR(l["pinnedD2hGBps"]["value"].get<double>(), 55, 55 * 0.05);
    EXPECT_TRUE(l["numa"]["dependsOnNode"].get<bool>());
  }
  EXPECT_TRUE(host["outliers"].empty());

  EXPECT_NE(r.out.find("=== GPUs 0-7 (8 x NVIDIA H100 80GB HBM3, complete) ==="), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("=== GPU 1"), std::string::npos);
  EXPECT_NE(r.out.find("among them"), std::string::npos);
  for (const char* row :
       {"Link  GPU0  GPU1  GPU2  GPU3  GPU4  GPU5  GPU6  GPU7", "GPU0     X  NV18  NV18",
        "Read GB/s  GPU0", "Load ns  GPU0", "Host links  NUMA node"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  std::istringstream in(r.out);
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_LE(lines, 150);
}

TEST(HostCli, VerboseTextPrintsEachGpuThenTheHostSection) {
  std::vector<std::string> args = {"--sim", "hgx-a100-4", "-d", "all", "-v"};
  args.insert(args.end(), kQuick.begin(), kQuick.end());
  const ProcessResult r = gputopo(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t last_gpu = 0;
  for (int i = 0; i < 4; ++i) {
    const auto at = r.out.find("=== GPU " + std::to_string(i) + " (complete) ===");
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_GT(at + 1, last_gpu);
    last_gpu = at;
  }
  const auto host = r.out.find("Host: 4 GPU(s)");
  ASSERT_NE(host, std::string::npos);
  EXPECT_GT(host, last_gpu);
  EXPECT_NE(r.out.find("NVLink 3 x 4", host), std::string::npos);
  EXPECT_NE(r.out.find("Outliers: none", host), std::string::npos);
}

TEST(HostCli, OneGpuHostHasNoPeersAndItsHostLink) {
  const Json doc = host_json("h100-x1");
  EXPECT_TRUE(doc["host"]["peers"].empty());
  EXPECT_NEAR(doc["host"]["hostLinks"][0]["pinnedH2dGBps"]["value"].get<double>(), 55, 3);
  EXPECT_TRUE(doc["host"]["hostLinks"][0]["numa"].contains("notEstablished"));
}

TEST(HostCli, AFailingGpuKeepsTheOthersReportsAndExitsFour) {
  const fs::path file = fs::path(::testing::TempDir()) / "failing-host.json";
  std::ofstream(file) << R"({
    "numaNodes": [0],
    "hostLink": {"pinnedH2dGBps": 20, "pinnedD2hGBps": 20, "pageableH2dGBps": 8,
                 "pageableD2hGBps": 8, "latencyUs": 3},
    "gpus": [{"preset": "toy", "numaNode": 0}, {"preset": "toy", "numaNode": 0, "fails": true},
             {"preset": "toy", "numaNode": 0}],
    "linkTypes": {"pcie": {"type": "PCIe", "GBps": 20, "bidirGBps": 30, "latencyUs": 5}},
    "links": [["", "pcie", "pcie"], ["pcie", "", "pcie"], ["pcie", "pcie", ""]]
  })";
  const fs::path out = fs::path(::testing::TempDir()) / "failing-host-out.json";
  std::vector<std::string> args = {"--sim", file.string(), "-d", "all", "-o", out.string()};
  args.insert(args.end(), kQuick.begin(), kQuick.end());
  const ProcessResult r = gputopo(args);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("GPU 1 failed"), std::string::npos) << r.err;
  std::ifstream in(out);
  const Json doc = Json::parse(in);
  expect_valid(doc);
  EXPECT_EQ(doc["run"]["status"], "failed");
  EXPECT_EQ(doc["host"]["gpus"][1]["status"], "failed");
  EXPECT_EQ(doc["host"]["gpus"][0]["status"], "complete");
  EXPECT_EQ(doc["gpus"][2]["run"]["status"], "complete");
  EXPECT_FALSE(doc["gpus"][0]["memory"].empty());
  for (const auto& p : doc["host"]["peers"]) {
    const bool touches = p["from"] == 1 || p["to"] == 1;
    EXPECT_EQ(touches, p.contains("notEstablished")) << p.dump();
    if (!touches) {
      EXPECT_EQ(p["link"]["type"], "PCIe");
    }
  }
}

TEST(HostCli, DifferentGpusFormGroupsOfIdenticalOnes) {
  const fs::path file = fs::path(::testing::TempDir()) / "mixed-host.json";
  std::ofstream(file) << R"({
    "numaNodes": [0, 1],
    "hostLink": {"pinnedH2dGBps": 20, "pinnedD2hGBps": 20, "pageableH2dGBps": 8,
                 "pageableD2hGBps": 8, "latencyUs": 3, "remoteNumaFactor": 1},
    "gpus": [{"preset": "toy", "numaNode": 0}, {"preset": "noisy", "numaNode": 1},
             {"preset": "toy", "numaNode": 1}],
    "linkTypes": {"pcie": {"type": "PCIe", "GBps": 20, "bidirGBps": 30, "latencyUs": 5,
                           "access": false}},
    "links": [["", "pcie", "pcie"], ["pcie", "", "pcie"], ["pcie", "pcie", ""]]
  })";
  const Json doc = host_json(file.string());
  expect_valid(doc);
  EXPECT_EQ(doc["host"]["identical"], Json::parse("[[0,2],[1]]"));
  for (const auto& p : doc["host"]["peers"]) {
    EXPECT_FALSE(p["access"].get<bool>());
    EXPECT_FALSE(p["atomics"].get<bool>());
    EXPECT_TRUE(p["readGBps"]["value"].is_null());
  }
  // The same bandwidth from either node: no dependence.
  for (const auto& l : doc["host"]["hostLinks"])
    EXPECT_FALSE(l["numa"]["dependsOnNode"].get<bool>()) << l["numa"].dump();
}

TEST(HostCli, WithoutAGpuTheSimulatedHostStandsIn) {
  if (gputopo({"list"}).exit_code == 0) GTEST_SKIP() << "this host has a GPU";
  std::vector<std::string> args = {"-d", "all", "--json", "--only", "l1.line"};
  const ProcessResult r = gputopo(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("SIMULATED host 'h100-x1'"), std::string::npos) << r.err;
  const Json doc = model::parse_json_input(r.out);
  EXPECT_EQ(doc["run"]["sim"]["preset"], "h100-x1");
  EXPECT_EQ(doc["host"]["gpuCount"], 1);
}

TEST(HostCli, AGpuPresetIsAHostOfOneGpuWithoutHostLinks) {
  const Json doc = host_json("toy");
  EXPECT_EQ(doc["host"]["gpuCount"], 1);
  EXPECT_TRUE(doc["host"]["hostLinks"][0]["pinnedH2dGBps"]["value"].is_null());
  EXPECT_TRUE(doc["host"]["numaNodes"].contains("notEstablished"));
}

TEST(HostCli, OneGpuOfAHostIsReportedAlone) {
  const ProcessResult r = gputopo({"--sim", "dgx-h100", "-d", "7", "info", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(model::parse_json_input(r.out)["run"]["device"], 7);
  const ProcessResult out_of_range = gputopo({"--sim", "dgx-h100", "-d", "8", "info"});
  EXPECT_EQ(out_of_range.exit_code, 3);
  EXPECT_NE(out_of_range.err.find("has 8 GPUs"), std::string::npos) << out_of_range.err;
}

TEST(HostCli, AllIsForTheMainJobAndList) {
  EXPECT_EQ(gputopo({"--sim", "dgx-h100", "-d", "all", "info"}).exit_code, 2);
  EXPECT_EQ(gputopo({"--sim", "dgx-h100", "-d", "all", "tree"}).exit_code, 2);
  EXPECT_EQ(gputopo({"--sim", "dgx-h100", "-d", "all", "--format", "markdown"}).exit_code, 2);
  EXPECT_EQ(gputopo({"--sim", "no-such-host", "-d", "all"}).exit_code, 2);
  const ProcessResult list = gputopo({"--sim", "dgx-h100", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("GPU 7: "), std::string::npos);
  EXPECT_NE(list.out.find("NUMA node 1"), std::string::npos);
}

}  // namespace
}  // namespace gputopo::test
