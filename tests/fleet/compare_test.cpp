#include "fleet/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
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

TEST(FleetCompare, MeasuredValueDiffersBeyondItsScaleAndTheFloor) {
  // Intervals of +-0.5 % (sd 7.7 GB/s at 3000): 1 % off is 3.9 sd, 1.7 % off is 6.6 sd.
  EXPECT_TRUE(
      compare(fleet_of({report(3000), report(2970), report(3000)}), {}).differences.empty());
  EXPECT_NE(difference(compare(fleet_of({report(3000), report(2950), report(3000)}), {}),
                       "memory.dram.readBandwidth"),
            nullptr);
  // 5 % off, but its interval reaches 5 sd of the consensus: the measurement cannot tell.
  auto wide = report(2850);
  wide["memory"]["dram"]["readBandwidth"]["interval"] = {2600, 3100};
  EXPECT_TRUE(compare(fleet_of({report(3000), wide, report(3000)}), {}).differences.empty());
  // The spread between the GPUs is part of the scale: 2 % off among GPUs that spread by 1 %.
  const auto spread = fleet_of(
      {report(3000), report(3030), report(2970), report(3015), report(2985), report(2940)});
  EXPECT_TRUE(compare(spread, {}).differences.empty());
  // Far beyond its scale, but under the floor (--tolerance).
  EXPECT_TRUE(compare(fleet_of({report(3000), report(2950), report(3000)}), {.tolerance = 0.02})
                  .differences.empty());
}

TEST(FleetCompare, AnOpenIntervalBoundReachesEverythingOnItsSide) {
  auto open = report(2000);
  open["memory"]["dram"]["readBandwidth"]["interval"] = {1990, nullptr};
  EXPECT_TRUE(compare(fleet_of({report(3000), open, report(3000)}), {}).differences.empty());
  open["memory"]["dram"]["readBandwidth"]["value"] = 4000;
  open["memory"]["dram"]["readBandwidth"]["interval"] = {3990, nullptr};
  EXPECT_NE(difference(compare(fleet_of({report(3000), open, report(3000)}), {}),
                       "memory.dram.readBandwidth"),
            nullptr);
}

TEST(FleetCompare, LowConfidenceValueDoesNotDiffer) {
  auto count = [](double tpcs, double confidence) {
    auto r = report(3000);
    r["compute"]["tpcCount"] = {
        {"value", tpcs}, {"source", "measured"}, {"confidence", confidence}};
    return r;
  };
  EXPECT_TRUE(
      compare(fleet_of({count(8, 0.9), count(16, 0.4), count(8, 0.7)}), {}).differences.empty());
  const auto c = compare(fleet_of({count(8, 0.9), count(16, 0.6), count(8, 0.7)}), {});
  ASSERT_NE(difference(c, "compute.tpcCount"), nullptr);
  EXPECT_EQ(difference(c, "compute.tpcCount")->members[0].member, "gpu1");
  // Against a reference: one that did not establish it is no consensus.
  EXPECT_TRUE(compare(fleet_of({count(8, 0.3), count(16, 0.9)}), {}).differences.empty());
}

// A reference made by scripts/make-reference.py: the median of its runs and their spread.
Json reference(double median, double sigma, double lo, double hi) {
  auto r = report(median);
  r["memory"]["dram"]["readBandwidth"].erase("interval");
  r["memory"]["dram"]["readBandwidth"]["spread"] = {
      {"runs", 12}, {"of", 12}, {"min", lo}, {"max", hi}, {"sigma", sigma}};
  r["device"]["name"]["spread"] = {{"runs", 12}, {"values", {"GPU", "GPU (rev 2)"}}};
  return r;
}

TEST(FleetCompare, AgainstAReferenceItsRunsRangeAndSpreadCount) {
  const auto ref = reference(3000, 15, 2950, 3040);
  // Inside the range the runs spanned, however narrow the GPU's interval.
  EXPECT_TRUE(compare(fleet_of({ref, report(2955)}), {}).differences.empty());
  // Beyond it by less than 4.5 combined sd (15 and the GPU's 2900 * 0.005 / 1.96 = 7.4): 70.
  EXPECT_TRUE(compare(fleet_of({ref, report(2880)}), {}).differences.empty());
  const auto c = compare(fleet_of({ref, report(2850)}), {});
  ASSERT_NE(difference(c, "memory.dram.readBandwidth"), nullptr);
  EXPECT_NEAR(*difference(c, "memory.dram.readBandwidth")->members[0].scale,
              std::hypot(15.0, 0.005 * 2850 / 1.96), 1e-9);
  // A string any of the reference's runs gave agrees.
  EXPECT_EQ(
      difference(compare(fleet_of({ref, report(3000, 132, "GPU (rev 2)")}), {}), "device.name"),
      nullptr);
  EXPECT_NE(
      difference(compare(fleet_of({ref, report(3000, 132, "GPU (rev 3)")}), {}), "device.name"),
      nullptr);
}

TEST(FleetCompare, HowFarHealthyGpusOfTheModelSpreadCountsAsNoise) {
  // Three GPUs, one 3 % off with tight intervals: a difference on the intervals alone.
  const auto fleet = fleet_of({report(3000), report(2910), report(3000)});
  ASSERT_NE(difference(compare(fleet, {}), "memory.dram.readBandwidth"), nullptr);
  // Healthy GPUs of the model spread by sd 30 (1 %): 3 % is 3 sd of that, no difference.
  const Member healthy = members_of(reference(3000, 30, 2950, 3040), "reference x").front();
  const auto c = compare(fleet, {.healthy = &healthy});
  EXPECT_TRUE(c.differences.empty());
  EXPECT_EQ(c.healthy, "reference x");
  // 15 % slower is far beyond it.
  const auto slow =
      compare(fleet_of({report(3000), report(2550), report(3000)}), {.healthy = &healthy});
  ASSERT_NE(difference(slow, "memory.dram.readBandwidth"), nullptr);
  EXPECT_NEAR(*difference(slow, "memory.dram.readBandwidth")->members[0].scale,
              std::hypot(30.0, 1.2533 * 0.005 * 3000 / 1.96 / std::sqrt(3.0)), 1.0);
  // Two GPUs (a host of two, or check): two chips differ as healthy ones of the model do.
  const auto pair = compare(fleet_of({report(3000), report(2910)}), {.healthy = &healthy});
  EXPECT_TRUE(pair.differences.empty());
  EXPECT_EQ(pair.healthy, "reference x");
  ASSERT_NE(difference(compare(fleet_of({report(3000), report(2550)}), {.healthy = &healthy}),
                       "memory.dram.readBandwidth"),
            nullptr);
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

TEST(FleetCompare, ValueNotEstablishedOrAbsentDoesNotDiffer) {
  auto missing = report(3000);
  missing["memory"]["dram"]["readBandwidth"] = {
      {"value", nullptr}, {"source", "measured"}, {"reason", "the GPU was busy"}};
  auto absent = report(3000);
  absent["memory"].erase("l2");
  const auto c = compare(fleet_of({report(3000), missing, report(3000), absent}), {});
  // Established on one side only: its report says why.
  EXPECT_EQ(difference(c, "memory.dram.readBandwidth"), nullptr);
  // gpu3's report has no L2 (a run with --only): nothing to compare, not a difference.
  EXPECT_EQ(difference(c, "memory.l2.lineSize"), nullptr);
  EXPECT_TRUE(c.outliers.empty());
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
  for (const Json& doc :
       {Json::array({1, 2}), Json(), Json(3), Json("x"), Json{{"device", {}}},
        Json{{"gpus", Json::array()}}, Json{{"device", "x"}, {"memory", "y"}},
        Json{{"device", Json::object()}, {"memory", Json::object()}},
        Json{{"device", nullptr}, {"memory", nullptr}}, Json{{"device", {1}}, {"memory", {2}}},
        Json{{"device", {{"name", "x"}}}, {"memory", Json::object()}}, Json{{"gpus", {nullptr}}},
        Json{{"gpus", {Json::object()}}}})
    EXPECT_THROW(members_of(doc, "x"), std::invalid_argument) << doc.dump();
  EXPECT_NO_THROW(
      members_of(Json{{"device", {{"name", {{"value", "x"}}}}}, {"memory", Json::object()}}, "x"));
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
