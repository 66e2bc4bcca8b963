#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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

TEST(CompareCli, TwoModelsDifferAndExitSix) {
  const auto r = gputopo({"compare", kGolden + "h100-sxm.json", kGolden + "h200.json"});
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.out.find("2 GPUs (h100-sxm, h200)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device.name: NVIDIA H100 80GB HBM3 (reference); h200 "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Outliers: h200"), std::string::npos) << r.out;
}

TEST(CompareCli, OneSlowGpuOfThreeIsTheOutlier) {
  auto report = read_report(kGolden + "h100-sxm.json");
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
  const auto file = kGolden + "a100.json";
  const auto r = gputopo({"compare", file, file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 GPUs (" + file + ", " + file + ")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No outliers"), std::string::npos) << r.out;
}

TEST(CompareCli, BadInputIsOneLineAndExitTwo) {
  const auto not_json = temp_file("broken.json").string();
  std::ofstream(not_json) << "{ not json";
  const std::vector<std::vector<std::string>> cases = {
      {"compare", kGolden + "a100.json", "/nonexistent/report.json"},
      {"compare", kGolden + "a100.json", not_json},
      {"compare", kGolden + "a100.json", kGolden + "a100.txt"},
      {"compare", kGolden + "a100.json"},
      {"compare", kGolden + "a100.json", kGolden + "h200.json", "--tolerance", "x"},
      {"compare", kGolden + "a100.json", kGolden + "h200.json", "--sim", "h200"},
      {"compare", kGolden + "a100.json", kGolden + "h200.json", "--depth", "full"},
      {"compare"}};
  for (const auto& args : cases) {
    const auto r = gputopo(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gputopo: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace gputopo::test
