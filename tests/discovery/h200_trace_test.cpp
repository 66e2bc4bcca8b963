#include <gtest/gtest.h>

#include <string>

#include "../record/replay_run.hpp"
#include "../record/test_recordings.hpp"

// Recordings made on H200s (--depth full --raw): offline they give what the GPU gave.
namespace gputopo::device::record {
namespace {

using H200Trace = testing::TempDirTest;

// The L2 slices and the GPC placement (GPU-039bdd59, docs/results/h200/slice-counters).
TEST_F(H200Trace, ReplaysTo94SlicesAndEverySmInOneOf8Gpcs) {
  const auto r = testing::replay_run(dir_, "h200-slices-layout-raw.tgz", "raw",
                                     {"l2.slices", "layout"}, discovery::Depth::Full);
  const model::AttributeList* l2 = nullptr;
  for (const auto& e : r.memory)
    if (e.key == "l2") l2 = &e.attributes;
  ASSERT_NE(l2, nullptr);

  // Reductions from every SM: 94 contention classes over 2,048 lines, none expected unseen; no
  // linear hash of the address bits gives them.
  const auto* slices = model::find(*l2, "sliceCount");
  ASSERT_TRUE(slices && slices->available()) << (slices ? slices->reason : "");
  EXPECT_EQ(slices->value, 94);
  ASSERT_TRUE(slices->interval.has_value());
  EXPECT_EQ(slices->interval->lo, 94);
  EXPECT_EQ(slices->interval->hi, 94);
  EXPECT_GT(slices->confidence.value_or(0), 0.5);
  EXPECT_FALSE(slices->evidence["hashLinear"].get<bool>());
  EXPECT_EQ(slices->evidence["lineClass"].size(), 2048u) << slices->evidence["lineClass"];

  // The per-SM x per-slice latency map: 64 SMs x 94 slices, 280 cycles from least to most.
  const auto* spread = model::find(*l2, "sliceLatencySpread");
  ASSERT_TRUE(spread && spread->available()) << (spread ? spread->reason : "");
  EXPECT_NEAR(spread->value.get<double>(), 280, 10);
  const auto& map = spread->evidence["cyclesBySmAndSlice"];
  ASSERT_EQ(map.size(), 64u);
  EXPECT_EQ(map[0].size(), 94u);

  // Clusters place 124 SMs; the four loose TPCs join the GPC whose L2 port they share.
  const auto* gpcs = model::find(r.compute, "gpcCount");
  ASSERT_TRUE(gpcs && gpcs->available()) << (gpcs ? gpcs->reason : "");
  EXPECT_EQ(gpcs->value, 8);
  const auto& gpc_of = gpcs->evidence["gpcOfSm"];
  ASSERT_EQ(gpc_of.size(), 132u);
  for (const auto& g : gpc_of) EXPECT_TRUE(g.is_number_integer()) << gpc_of;
  EXPECT_EQ(gpcs->evidence["portPlacement"]["units"].size(), 4u);
  const auto* per_gpc = model::find(r.compute, "smsPerGpc");
  ASSERT_TRUE(per_gpc && per_gpc->available());
  int placed = 0;
  for (const auto& n : per_gpc->value) placed += n.get<int>();
  EXPECT_EQ(placed, 132);
}

// The L1 (GPU-f148849c, docs/results/h200/l1-geometry): no power-of-two stride loses capacity;
// random lines give 4 ways, and 2,559-2,561 consecutive lines all missing 512 sets.
TEST_F(H200Trace, ReplaysTheL1To4WaysOf512Sets) {
  const auto r =
      testing::replay_run(dir_, "h200-l1-geometry-raw.txz", "raw", {"l1"}, discovery::Depth::Full);
  const model::AttributeList* l1 = nullptr;
  for (const auto& e : r.memory)
    if (e.key == "l1") l1 = &e.attributes;
  ASSERT_NE(l1, nullptr);
  const auto* ways = model::find(*l1, "associativity");
  ASSERT_TRUE(ways && ways->available()) << (ways ? ways->reason : "");
  EXPECT_EQ(ways->value, 4);
  EXPECT_NE(ways->method.find("random lines"), std::string::npos) << ways->method;
  const auto* sets = model::find(*l1, "sets");
  ASSERT_TRUE(sets && sets->available()) << (sets ? sets->reason : "");
  EXPECT_EQ(sets->value, 512);
  ASSERT_TRUE(sets->interval.has_value());
  EXPECT_LE(sets->interval->lo, 512);
  EXPECT_GE(sets->interval->hi, 512);
  EXPECT_LE(sets->interval->hi - sets->interval->lo, 2);
  const auto* index = model::find(*l1, "indexFunction");
  ASSERT_TRUE(index && index->available()) << (index ? index->reason : "");
  EXPECT_EQ(index->value.get<std::string>().rfind("hashed: ", 0), 0u) << index->value;
  // The draws alone read fewer sets: the carve-out takes a way from some.
  EXPECT_LT(sets->evidence["setsFromDraws"].get<double>(), 505);
}

}  // namespace
}  // namespace gputopo::device::record
