#include "model/topology.hpp"

#include <gtest/gtest.h>

#include "model/report.hpp"

namespace gputopo::model {
namespace {

// Groups are numbered by their lowest SM whatever order the probe found them in, and every
// object knows its members and what holds it.
TEST(Topology, ObjectsAreNumberedByTheirLowestSmAndLinkedBothWays) {
  Topology t;
  set_tpcs(t, 8, {{7, 6}, {0, 1}, {5, 4}, {3, 2}});
  set_gpcs(t, 8, {{4, 5, 6, 7}, {3, 2, 1, 0}}, {0.9, 0.9, 0.9, 0.9, 0.8, 0.8, 0.8, 0.8}, {});
  ASSERT_EQ(t.gpcs.size(), 2u);
  EXPECT_EQ(t.gpcs[0].sms, (SmList{0, 1, 2, 3}));
  EXPECT_EQ(t.gpcs[1].tpcs, (std::vector<int>{2, 3}));
  EXPECT_EQ(t.tpcs[3].sms, (SmList{6, 7}));
  EXPECT_EQ(t.tpcs[3].gpc, 1);
  EXPECT_EQ(t.sms[5].gpc, 1);
  EXPECT_EQ(t.sms[5].tpc, 2);
  EXPECT_DOUBLE_EQ(t.sms[5].gpc_confidence, 0.8);
}

// An SM no GPC holds keeps no placement; a segment holds the GPCs whose SMs all load through it,
// and the slices a slice probe put in it.
TEST(Topology, UnplacedSmsSegmentsAndSlices) {
  Topology t;
  set_gpcs(t, 6, {{0, 1}, {2, 3}}, {1, 1, 1, 1, 0, 0}, {{4, 5}});
  EXPECT_FALSE(t.sms[4].gpc);
  EXPECT_EQ(t.loose_units, (std::vector<SmList>{{4, 5}}));
  set_segment_of_sm(t, {0, 0, 1, 1, 1, std::nullopt});
  add_slice(t, {0, 1, {3, 2}, 0.9, {}}, "l2.sliceCount");
  add_slice(t, {1, std::nullopt, {}, 0.4, {}}, "l2.sliceCount");
  ASSERT_EQ(t.segments.size(), 2u);
  EXPECT_EQ(t.segments[1].sms, (SmList{2, 3, 4}));
  EXPECT_EQ(t.segments[1].gpcs, (std::vector<int>{1}));
  EXPECT_EQ(t.segments[1].slices, (std::vector<int>{0}));
  EXPECT_TRUE(t.segments[0].slices.empty());
  EXPECT_EQ(t.slices[0].near_sms, (SmList{2, 3}));
  EXPECT_FALSE(t.sms[5].segment);
}

// A level's state is its attribute's: a finding demoted to no value takes the segments' per-SM
// answer with it, though the membership stays for the evidence.
TEST(Topology, LevelsTakeTheirStateFromTheirAttribute) {
  Report r;
  set_segment_of_sm(r.topology, {0, 1});
  settle_levels(r);
  EXPECT_FALSE(r.topology.segment_state.measured);
  EXPECT_TRUE(r.topology.segment_of_sm().empty());
  r.compute.emplace_back("nearL2Segments", Attribute::measured(2, "", "test", 0.7));
  settle_levels(r);
  EXPECT_EQ(r.topology.segment_of_sm(), (std::vector<int>{0, 1}));
  EXPECT_EQ(r.topology.segment_state.confidence, 0.7);
  r.compute.back().second = Attribute::unavailable(Source::Measured, "", "GPU busy");
  settle_levels(r);
  EXPECT_TRUE(r.topology.segment_state.measured);
  EXPECT_EQ(r.topology.segment_state.reason, "GPU busy");
  EXPECT_TRUE(r.topology.segment_of_sm().empty());
  EXPECT_EQ(r.topology.segments.size(), 2u);
}

}  // namespace
}  // namespace gputopo::model
