#include <gtest/gtest.h>

#include <limits>

#include "fake_device.hpp"
#include "model/info_report.hpp"
#include "report/json_writer.hpp"
#include "schema_validator.hpp"

namespace gputopo::report {
namespace {
using model::Json;

// The report the CLI writes for `info` on the fake device: tool and run as the Session fills them.
model::Report info_report(bool simulated) {
  device::DeviceInfo info = test::h100_like_info();
  info.simulated = simulated;
  model::Report r = make_info_report(info);
  r.tool = {"gputopo", "0.1.0", "v0.1-3-gabc"};
  r.run.command = "info";
  r.run.command_line = {"gputopo", "info", "--json"};
  r.run.timestamp = "2026-11-21T05:51:18Z";
  r.run.host = "node1";
  r.run.device = 0;
  r.run.duration_seconds = 0.02;
  r.run.status = "complete";
  r.run.phases = {{"info", 0.02, "ok"}};
  return r;
}

nlohmann::json plain(const Json& j) { return nlohmann::json::parse(j.dump()); }

test::SchemaValidator schema() {
  return test::SchemaValidator(test::load_json_file(GPUTOPO_SCHEMA_FILE));
}

std::string joined(const std::vector<std::string>& errors) {
  std::string s;
  for (const auto& e : errors) s += e + "\n";
  return s;
}

TEST(ReportJson, TopLevelKeysInDesignOrder) {
  Json j = to_json(info_report(false));
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"schema", "tool", "run", "device", "compute", "memory",
                                            "warnings"}));
  EXPECT_EQ(j["schema"], kSchemaVersion);
}

TEST(ReportJson, EveryAttributeHasValueUnitSource) {
  Json j = to_json(info_report(false));
  for (const char* group : {"device", "compute"})
    for (auto& [key, a] : j[group].items()) {
      EXPECT_TRUE(a.contains("value")) << group << "." << key;
      EXPECT_TRUE(a.contains("unit")) << group << "." << key;
      EXPECT_TRUE(a.contains("source")) << group << "." << key;
    }
  EXPECT_EQ(j["compute"]["coresPerSm"]["source"], "table");
  EXPECT_EQ(j["device"]["powerLimit"]["available"], false);
  EXPECT_NE(j["device"]["powerLimit"]["reason"].get<std::string>().find("NVML"), std::string::npos);
}

TEST(ReportJson, ApiSizesUnderMemoryForJq) {
  Json j = to_json(info_report(false));
  EXPECT_EQ(j["memory"]["l2"]["apiSize"]["value"], 52428800);
  EXPECT_EQ(j["memory"]["shared"]["apiSize"]["value"], 233472);
  EXPECT_EQ(j["memory"]["dram"]["size"]["value"], 85029158912ULL);
  // 2 x 2619 MHz x 5120 bit / 8 = 3352.32 GB/s: the H100 SXM's published peak.
  EXPECT_NEAR(j["memory"]["dram"]["peakBandwidth"]["value"].get<double>(), 3352.32, 0.01);
  EXPECT_EQ(j["memory"]["dram"]["peakBandwidth"]["source"], "derived");
}

TEST(ReportJson, SimulatedIsSaidInRunAndDevice) {
  Json real = to_json(info_report(false));
  EXPECT_EQ(real["run"]["simulated"], false);
  EXPECT_EQ(real["device"]["simulated"]["value"], false);
  Json sim = to_json(info_report(true));
  EXPECT_EQ(sim["run"]["simulated"], true);
  EXPECT_EQ(sim["device"]["simulated"]["value"], true);
  EXPECT_EQ(sim["device"].begin().key(), "simulated");
}

TEST(ReportJson, MeasuredAttributesMergeOverTheApiReport) {
  model::Report r = info_report(false);
  auto size = model::Attribute::measured(245760, "B", "pchase-size-sweep", 0.97);
  size.interval = model::Interval{243712, 247808};
  model::merge(r.memory,
               {{"l1", {{"size", size}}},
                {"l2", {{"size", model::Attribute::measured(26214400, "B", "pchase", 0.9)}}}});
  Json j = to_json(r);
  EXPECT_EQ(j["memory"]["l1"]["size"]["interval"][1], 247808);
  EXPECT_EQ(j["memory"]["l2"]["apiSize"]["value"], 52428800);
  EXPECT_EQ(j["memory"]["l2"]["size"]["source"], "measured");
  EXPECT_TRUE(schema().validate(plain(j)).empty()) << joined(schema().validate(plain(j)));
}

TEST(ReportSchema, LowerBoundWithOpenIntervalConforms) {
  model::Report r = info_report(false);
  auto size = model::Attribute::measured(65536, "B", "pchase-size-sweep (lower bound)", 0.0);
  size.interval = model::Interval{65536, std::numeric_limits<double>::infinity()};
  size.reason = "at least 64 KiB: the constant space holds no larger array";
  r.memory.push_back({"constantL15", {{"size", size}}});
  Json j = to_json(r);
  EXPECT_TRUE(plain(j)["memory"]["constantL15"]["size"]["interval"][1].is_null());
  auto errors = schema().validate(plain(j));
  EXPECT_TRUE(errors.empty()) << joined(errors);
}

TEST(ReportSchema, InfoReportConforms) {
  for (bool simulated : {false, true}) {
    auto errors = schema().validate(plain(to_json(info_report(simulated))));
    EXPECT_TRUE(errors.empty()) << joined(errors);
  }
}

TEST(ReportSchema, RejectsBrokenReports) {
  const nlohmann::json good = plain(to_json(info_report(false)));
  auto broken = [&](auto change) {
    nlohmann::json j = good;
    change(j);
    return !schema().validate(j).empty();
  };
  EXPECT_TRUE(broken([](auto& j) { j["compute"]["smCount"].erase("unit"); }));
  EXPECT_TRUE(broken([](auto& j) { j["compute"]["smCount"]["source"] = "guess"; }));
  EXPECT_TRUE(broken([](auto& j) { j["device"]["powerLimit"].erase("reason"); }));
  EXPECT_TRUE(broken([](auto& j) { j["compute"]["smCount"]["confidence"] = 1.5; }));
  EXPECT_TRUE(broken([](auto& j) { j["memory"]["l3"] = nlohmann::json::object(); }));
  EXPECT_TRUE(broken([](auto& j) { j["run"]["status"] = "fine"; }));
  EXPECT_TRUE(broken([](auto& j) { j["run"]["timestamp"] = "yesterday"; }));
  EXPECT_TRUE(broken([](auto& j) { j.erase("tool"); }));
  EXPECT_TRUE(broken([](auto& j) { j["schema"] = 2; }));
  EXPECT_TRUE(broken([](auto& j) { j["memory"]["l2"]["apiSize"]["interval"] = {1}; }));
}

}  // namespace
}  // namespace gputopo::report
