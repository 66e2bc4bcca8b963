#include "fleet/compare.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "fleet/comparison_output.hpp"

namespace gputopo::fleet {
namespace {

using model::Json;

Json measured(double value, double lo, double hi) {
  return {{"value", value}, {"unit", "GB/s"}, {"source", "measured"}, {"interval", {lo, hi}}};
}

// A report with the few attributes the tests vary: the driver's SM count and name, a measured
// bandwidth with its interval, a measured line size without one.
Json report(double bandwidth, int sms = 132, const std::string& name = "GPU") {
  return {{"device",
           {{"name", {{"value", name}, {"unit", ""}, {"source", "api"}}},
            {"uuid", {{"value", "GPU-" + std::to_string(bandwidth)}, {"source", "api"}}}}},
          {"compute", {{"smCount", {{"value", sms}, {"unit", ""}, {"source", "api"}}}}},
          {"memory",
           {{"dram",
             {{"readBandwidth", measured(bandwidth, 0.995 * bandwidth, 1.005 * bandwidth)},
              {"latencyBySm", {{"value", Json::array({1, 2})}, {"source", "measured"}}}}},
            {"l2", {{"lineSize", {{"value", 128}, {"unit", "B"}, {"source", "measured"}}}}}}}};
}

std::vector<Member> fleet_of(const std::vector<Json>& reports) {
  std::vector<Member> members;
  for (std::size_t i = 0; i < reports.size(); ++i)
    members.push_back(members_of(reports[i], "gpu" + std::to_string(i)).front());
  return members;
}

const Difference* difference(const Comparison& c, const std::string& path) {
  for (const auto& d : c.differences)
    if (d.path == path) return &d;
  return nullptr;
}

TEST(FleetCompare, AlikeGpusHaveNoDifferenceAndIdentifiersAreNotCompared) {
  const auto c = compare(fleet_of({report(3000), report(3001), report(2999)}), {});
  EXPECT_TRUE(c.differences.empty());
  EXPECT_TRUE(c.outliers.empty());
  // name, smCount, readBandwidth, lineSize: not the UUID, not the per-SM list.
  EXPECT_EQ(c.compared, 4u);
}

TEST(FleetCompare, LowBandwidthOutsideItsIntervalNamesTheOutlier) {
  const auto c = compare(fleet_of({report(3000), report(2640), report(3010), report(2995)}), {});
  const auto* d = difference(c, "memory.dram.readBandwidth");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->basis, "median");
  EXPECT_DOUBLE_EQ(d->consensus.get<double>(), 2997.5);
  ASSERT_EQ(d->members.size(), 1u);
  EXPECT_EQ(d->members[0].member, "gpu1");
  EXPECT_NEAR(*d->members[0].relative, 2640 / 2997.5 - 1, 1e-12);
  ASSERT_EQ(c.outliers.size(), 1u);
  EXPECT_EQ(c.outliers[0].member, "gpu1");
}

TEST(FleetCompare, MeasuredValueAgreesWithinToleranceOrWhenItsIntervalHoldsTheConsensus) {
  EXPECT_TRUE(
      compare(fleet_of({report(3000), report(2950), report(3000)}), {}).differences.empty());
  // 5 % off, but its interval reaches the consensus: the measurement cannot tell them apart.
  auto wide = report(2850);
  wide["memory"]["dram"]["readBandwidth"]["interval"] = {2800, 3100};
  EXPECT_TRUE(compare(fleet_of({report(3000), wide, report(3000)}), {}).differences.empty());
  // The same 5 % with its own narrow interval differs, and agrees under a 10 % tolerance.
  EXPECT_NE(difference(compare(fleet_of({report(3000), report(2850), report(3000)}), {}),
                       "memory.dram.readBandwidth"),
            nullptr);
  EXPECT_TRUE(
      compare(fleet_of({report(3000), report(2850), report(3000)}), {0.10}).differences.empty());
}

TEST(FleetCompare, DriverValuesDifferExactlyAndStringsByTheMostCommon) {
  const auto c = compare(fleet_of({report(3000, 132, "H100"), report(3000, 114, "H100"),
                                   report(3000, 132, "H100 PCIe")}),
                         {0.5});
  const auto* sms = difference(c, "compute.smCount");
  ASSERT_NE(sms, nullptr);
  EXPECT_EQ(sms->basis, "most common");
  EXPECT_EQ(sms->consensus, 132);
  ASSERT_EQ(sms->members.size(), 1u);
  EXPECT_EQ(sms->members[0].member, "gpu1");
  const auto* name = difference(c, "device.name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->consensus, "H100");
  EXPECT_EQ(name->members[0].member, "gpu2");
  EXPECT_EQ(c.outliers.size(), 2u);
}

TEST(FleetCompare, WithTwoGpusTheFirstIsTheReference) {
  const auto c = compare(fleet_of({report(3000), report(2000)}), {});
  const auto* d = difference(c, "memory.dram.readBandwidth");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->basis, "reference");
  EXPECT_EQ(d->consensus, 3000.0);
  ASSERT_EQ(d->members.size(), 1u);
  EXPECT_EQ(d->members[0].member, "gpu1");
}

TEST(FleetCompare, ValueOthersEstablishedButOneDidNotDiffersAndAnAbsentOneIsNotCompared) {
  auto missing = report(3000);
  missing["memory"]["dram"]["readBandwidth"] = {
      {"value", nullptr}, {"source", "measured"}, {"reason", "the GPU was busy"}};
  auto absent = report(3000);
  absent["memory"].erase("l2");
  const auto c = compare(fleet_of({report(3000), missing, report(3000), absent}), {});
  const auto* d = difference(c, "memory.dram.readBandwidth");
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->members.size(), 1u);
  EXPECT_TRUE(d->members[0].value.is_null());
  EXPECT_EQ(d->members[0].reason, "the GPU was busy");
  // gpu3's report has no L2 (a run with --only): nothing to compare, not a difference.
  EXPECT_EQ(difference(c, "memory.l2.lineSize"), nullptr);
  ASSERT_EQ(c.outliers.size(), 1u);
  EXPECT_EQ(c.outliers[0].member, "gpu1");
}

TEST(FleetCompare, ValuesNearTheDoubleRangeGiveAFiniteDeviation) {
  auto huge = report(3000);
  huge["memory"]["dram"]["readBandwidth"] = measured(1e308, 1e308, 1e308);
  auto negative = report(3000);
  negative["memory"]["dram"]["readBandwidth"] = measured(-1e308, -1e308, -1e308);
  const auto c = compare(fleet_of({huge, negative}), {});
  const auto* d = difference(c, "memory.dram.readBandwidth");
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(*d->members[0].relative, -2.0);
  std::ostringstream text;
  write_comparison_text(text, c);
  EXPECT_NE(text.str().find("1e+308 GB/s (reference); gpu1 -1e+308 (-200.0 %"), std::string::npos)
      << text.str();
}

TEST(FleetCompare, HostReportCountsEachGpu) {
  const Json host = {{"gpus", {report(3000), report(3000)}}, {"host", Json::object()}};
  const auto members = members_of(host, "node7");
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].name, "node7#0");
  EXPECT_EQ(members[1].name, "node7#1");
}

TEST(FleetCompare, WhatIsNotAReportIsRefused) {
  EXPECT_THROW(members_of(Json::array({1, 2}), "x"), std::invalid_argument);
  EXPECT_THROW(members_of(Json{{"device", {}}}, "x"), std::invalid_argument);
  EXPECT_THROW(members_of(Json{{"gpus", Json::array()}}, "x"), std::invalid_argument);
}

TEST(FleetCompare, JsonAndTextSayTheSame) {
  const auto c = compare(fleet_of({report(3000), report(2640), report(3010)}), {});
  const auto j = comparison_json(c);
  EXPECT_EQ(j["members"].size(), 3u);
  EXPECT_EQ(j["differences"][0]["attribute"], "memory.dram.readBandwidth");
  EXPECT_EQ(j["differences"][0]["members"][0]["member"], "gpu1");
  EXPECT_EQ(j["outliers"][0]["differences"], 1);
  std::ostringstream text;
  write_comparison_text(text, c);
  EXPECT_NE(text.str().find("memory.dram.readBandwidth: 3000 GB/s (median); gpu1 2640 (-12.0 %"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("Outliers: gpu1 (1 attribute)"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace gputopo::fleet
