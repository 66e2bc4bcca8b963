// The layout probe on simulated GPUs whose GPCs clusters do not cover: the clusters-at-once
// counts place SMs, or bound the GPC count (docs/topology.md).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "assembly/assemble.hpp"
#include "device/sim/config.hpp"
#include "device/sim/layout.hpp"
#include "device/sim/presets.hpp"
#include "discovery/sm_groups.hpp"
#include "result_access.hpp"

namespace gputopo::discovery {
namespace {

using testing::number;

// The toy preset with another SM count and layout.
device::sim::SimConfig toy_with(int sm_count, const nlohmann::json& layout) {
  return testing::preset_changed("toy", [&](nlohmann::json& j) {
    j["device"]["sm_count"] = sm_count;
    j["layout"] = layout;
  });
}

TEST(LayoutSim, TheClusterCountsPlaceAnSmNoClusterOfThreeOrMoreHeld) {
  // GPCs of 2 and 5 TPCs, clusters up to 4: the SMs are dealt round-robin, so the second GPC
  // holds SMs 2-3, 6-7, 10-13; clusters of 3 and 4 leave SM 13 out. Alone, SM 13 would take
  // no pair: 6 pairs fit at once, not 7.
  const auto cfg =
      toy_with(14, {{"sms_per_tpc", 2}, {"gpc_tpcs", {2, 5}}, {"max_cluster_size", 4}});
  const Result r = testing::discover_config(cfg, {"layout"}, 3);
  const auto* gpcs = model::find(r.compute, "gpcCount");
  ASSERT_NE(gpcs, nullptr);
  ASSERT_TRUE(gpcs->available()) << gpcs->reason;
  EXPECT_EQ(number(gpcs), 2);
  EXPECT_NE(gpcs->method.find("clusters-at-once"), std::string::npos) << gpcs->method;
  EXPECT_EQ(model::find(r.compute, "smsPerGpc")->value, (nlohmann::ordered_json{4, 10}));
  EXPECT_EQ(gpcs->evidence["gpcOfSm"][13], 1);
  EXPECT_EQ(gpcs->evidence["placementConfidence"][13], 0.8);
  EXPECT_EQ(gpcs->evidence["placementConfidence"][12], 0.9);
}

TEST(LayoutSim, LoneTpcsBoundTheGpcCountAndTheCountsSaySo) {
  // Two GPCs of 4 TPCs; the last TPC of the first never joins clusters of 3 or more.
  const auto cfg = toy_with(
      16,
      {{"sms_per_tpc", 2}, {"gpc_tpcs", {4, 4}}, {"lone_tpcs", {1, 0}}, {"max_cluster_size", 8}});
  const Result r = testing::discover_config(cfg, {"layout"}, 3);
  const auto* gpcs = model::find(r.compute, "gpcCount");
  ASSERT_NE(gpcs, nullptr);
  EXPECT_FALSE(gpcs->available());
  EXPECT_NE(gpcs->reason.find("standing apart"), std::string::npos) << gpcs->reason;
  EXPECT_EQ(gpcs->evidence["gpcCountInterval"], (nlohmann::ordered_json{2, 3}));
  EXPECT_EQ(gpcs->evidence["occupancyFit"]["structuresMatching"], 1);
  // The sim's answer follows its own units: 3 + 4 + 1 pairs, 2 + 2 triples.
  EXPECT_EQ(gpcs->evidence["clustersAtOnce"]["2"], 8);
  EXPECT_EQ(gpcs->evidence["clustersAtOnce"]["3"], 4);
  EXPECT_TRUE(gpcs->evidence["gpcOfSm"][12].is_null());
  EXPECT_EQ(gpcs->evidence["placementConfidence"][12], 0.0);
}

TEST(LayoutSim, ClusterUnitsLeaveLoneTpcsOutOfTheirGpc) {
  device::sim::LayoutSpec l;
  l.sms_per_tpc = 2;
  l.gpc_tpcs = {3, 2};
  l.lone_tpcs = {1, 0};
  l.max_cluster_size = 4;
  const auto t = device::sim::build_topology(l, 10);
  EXPECT_EQ(t.gpc_sms[0], (std::vector<int>{0, 1, 4, 5, 8, 9}));
  EXPECT_EQ(t.cluster_units, (std::vector<std::vector<int>>{{0, 1, 4, 5}, {2, 3, 6, 7}, {8, 9}}));
  EXPECT_EQ(device::sim::cluster_groups(l, t, 2).size(), 5u);
  EXPECT_EQ(device::sim::cluster_groups(l, t, 3).size(), 2u);
}

TEST(SmGroups, TheCutSplitsTwoClustersOfRisesOrFallsBackToHalf) {
  // An H200 in a whole --depth full run: the other segment's SMs crowd, its own evict.
  EXPECT_NEAR(effect_cut({0.474, 0.491, 0.921, 0.908, 0.451, 0.916}, 0.5, 0.25), 0.6995, 1e-9);
  EXPECT_EQ(effect_cut({0, 1, 0, 1, 1}, 0.5, 0.25), 0.5);
  EXPECT_EQ(effect_cut({0.45, 0.47, 0.46}, 0.5, 0.25), 0.5);  // none reach half
  EXPECT_EQ(effect_cut({0.1, 0.3}, 0.5, 0.1), 0.5);           // a gap below the floor
  EXPECT_EQ(effect_cut({0.2, 0.9}, 0.5, 0), 0.5);             // no gap rule
}

// Which L2 segment each SM loads through (--depth full), against the configuration: the SMs the
// probe puts in one segment are exactly those the preset puts in one.
class SegmentOfSmSim : public ::testing::TestWithParam<std::string> {};

TEST_P(SegmentOfSmSim, EverySmLoadsThroughItsConfiguredSegment) {
  const auto cfg = device::sim::load_config(GetParam());
  auto dev = device::sim::make_device(cfg, 5);
  NullProgress progress;
  Options o;
  o.only = {"l2Segments"};
  o.depth = Depth::Full;
  const Result r = discover(*dev, o, progress, nullptr);
  const auto* near = model::find(r.compute, "nearL2Segments");
  ASSERT_NE(near, nullptr);
  ASSERT_TRUE(near->available()) << near->reason;
  EXPECT_EQ(number(near), cfg.l2.segments);
  const auto& of_sm = near->evidence["segmentOfSm"];
  ASSERT_EQ(of_sm.size(), cfg.l2.sm_segment.size());
  std::map<int, int> measured_to_configured;
  for (std::size_t sm = 0; sm < of_sm.size(); ++sm) {
    ASSERT_TRUE(of_sm[sm].is_number_integer()) << "SM " << sm;
    const auto [it, fresh] =
        measured_to_configured.emplace(of_sm[sm].get<int>(), cfg.l2.sm_segment[sm]);
    EXPECT_EQ(it->second, cfg.l2.sm_segment[sm]) << "SM " << sm;
  }
  EXPECT_EQ(measured_to_configured.size(), static_cast<std::size_t>(cfg.l2.segments));
  if (cfg.layout.max_cluster_size > 2) {
    EXPECT_EQ(near->evidence["units"], "GPC");
  }
  // The report's topology says what the evidence says, and each segment holds whole GPCs.
  const model::Report report = assembly::Assembly().report(&r, {});
  const auto segment_of = report.topology.segment_of_sm();
  ASSERT_EQ(segment_of.size(), of_sm.size());
  for (std::size_t sm = 0; sm < of_sm.size(); ++sm)
    EXPECT_EQ(segment_of[sm], of_sm[sm].get<int>()) << "SM " << sm;
  std::size_t gpcs_in_segments = 0;
  for (const auto& segment : report.topology.segments) gpcs_in_segments += segment.gpcs.size();
  EXPECT_EQ(gpcs_in_segments, report.topology.gpcs.size());
  EXPECT_EQ(report.topology.gpc_state.measured, model::find(r.compute, "gpcCount") != nullptr);
}

TEST(SegmentOfSmSim, QuickDepthSaysHowToMeasureIt) {
  const Result r =
      testing::discover_config(device::sim::load_config("h100-sxm"), {"l2Segments"}, 5);
  const auto* near = model::find(r.compute, "nearL2Segments");
  ASSERT_NE(near, nullptr);
  EXPECT_FALSE(near->available());
  EXPECT_NE(near->reason.find("--depth full"), std::string::npos) << near->reason;
}

INSTANTIATE_TEST_SUITE_P(Segmented, SegmentOfSmSim,
                         ::testing::Values("h100-sxm", "odd-3seg", "a100"),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace gputopo::discovery
