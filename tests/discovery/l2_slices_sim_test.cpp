// The L2 slices probe on simulated GPUs with and without slices that differ in latency
// (docs/sim.md, slices and ports).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "device/sim/config.hpp"
#include "device/sim/presets.hpp"
#include "device/sim/sim_device.hpp"
#include "result_access.hpp"

namespace gputopo::discovery {
namespace {

// The toy preset (4 slices a segment, masks 0x440 and 0x80 over 64 B lines), its slices 30 cycles
// apart end to end in latency, with its L2 changed.
device::sim::SimConfig toy_l2(const nlohmann::json& l2_changes) {
  return testing::preset_changed("toy", [&](nlohmann::json& j) {
    j["l2"]["slice_latency_cycles"] = 30;
    j["l2"].update(l2_changes);
    if (j["l2"]["slices_per_segment"] == 1) j["l2"].erase("slice_hash");
  });
}

Result slices_of(device::sim::SimConfig config, Depth depth = Depth::Full) {
  auto dev = device::sim::make_device(std::move(config), 5);
  NullProgress progress;
  Options o;
  o.only = {"l2.slices", "l2.line"};
  o.depth = depth;
  return discover(*dev, o, progress, nullptr);
}

const model::Attribute* slice_count(const Result& r) {
  for (const auto& e : r.memory)
    if (e.key == "l2") return model::find(e.attributes, "sliceCount");
  return nullptr;
}

const model::Attribute* spread_of(const Result& r) {
  for (const auto& e : r.memory)
    if (e.key == "l2") return model::find(e.attributes, "sliceLatencySpread");
  return nullptr;
}

TEST(L2SlicesSim, TheSliceCountAndTheHashMasksComeFromTheLinesLatencyProfiles) {
  const Result r = slices_of(toy_l2(nlohmann::json::object()));
  const auto* a = slice_count(r);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->available()) << a->reason;
  EXPECT_EQ(a->value, 4);
  EXPECT_GT(a->confidence.value_or(0), 0.9);
  EXPECT_TRUE(a->evidence["hashLinear"].get<bool>());
  // The masks span 0x440 and 0x80 (reduced form: 0x440 ^ 0x80 may stand for one of them).
  const auto masks = a->evidence["hashMasks"].get<std::vector<std::string>>();
  ASSERT_EQ(masks.size(), 2u);
  std::set<std::uint64_t> span{0};
  for (const auto& m : masks) {
    const std::uint64_t v = std::stoull(m, nullptr, 16);
    for (const auto s : std::set<std::uint64_t>(span)) span.insert(s ^ v);
  }
  EXPECT_EQ(span, (std::set<std::uint64_t>{0, 0x440, 0x80, 0x4c0}));
  // The toy's 6 SMs and 4 slices sit along one line: SM 0 is nearest the first slice, SM 5 the
  // last (slice k of the preset holds line k's class here: lines 0-3 are slices 0-3).
  ASSERT_EQ(r.topology.slices.size(), 4u);
  EXPECT_EQ(r.topology.slices.front().near_sms, (model::SmList{0}));
  EXPECT_EQ(r.topology.slices.back().near_sms, (model::SmList{5}));
}

TEST(L2SlicesSim, ThePerSmPerSliceLatencyMapHasAnInterval) {
  const Result r = slices_of(toy_l2(nlohmann::json::object()));
  const auto* a = spread_of(r);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->available()) << a->reason;
  ASSERT_TRUE(a->interval.has_value());
  // slice_latency_cycles 30 x (|0.083 - 0.875| = 0.79) = 24 cycles between SM 0's nearest and
  // farthest slice, plus the TPCs' offsets (up to sm_latency_spread_cycles 6).
  EXPECT_GE(a->interval->hi, 24);
  EXPECT_LE(a->interval->lo, 30);
  EXPECT_LT(a->interval->hi - a->interval->lo, 2);
  const auto map = a->evidence["cyclesBySmAndClass"];
  ASSERT_EQ(map.size(), 6u);
  EXPECT_EQ(map[0].size(), 4u);
}

TEST(L2SlicesSim, EightSlicesOfAnotherHashAreFoundAsWell) {
  const Result r =
      slices_of(toy_l2({{"slices_per_segment", 8}, {"slice_hash", {0x41, 0x2, 0x84}}}));
  const auto* a = slice_count(r);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->available()) << a->reason;
  EXPECT_EQ(a->value, 8);
  EXPECT_EQ(a->evidence["hashMasks"].size(), 3u);
}

TEST(L2SlicesSim, WithoutSliceLatencyOrAtQuickDepthNothingIsClaimed) {
  // Slices that every SM reaches at one latency cannot be told apart.
  const Result flat = slices_of(toy_l2({{"slice_latency_cycles", 0}}));
  const auto* one = slice_count(flat);
  ASSERT_NE(one, nullptr);
  EXPECT_FALSE(one->available());
  EXPECT_NE(one->reason.find("one latency class"), std::string::npos) << one->reason;
  EXPECT_TRUE(flat.topology.slices.empty());
  ASSERT_NE(spread_of(flat), nullptr);
  EXPECT_FALSE(spread_of(flat)->available());
  const Result at_quick = slices_of(toy_l2(nlohmann::json::object()), Depth::Quick);
  const auto* quick = slice_count(at_quick);
  ASSERT_NE(quick, nullptr);
  EXPECT_FALSE(quick->available());
  EXPECT_NE(quick->reason.find("--depth full"), std::string::npos) << quick->reason;
}

TEST(L2SlicesSim, WhereSlicesBoundReductionsTheCountComesFromContention) {
  const Result r = slices_of(toy_l2({{"slice_reductions_per_ns", 0.05}}));
  const auto* a = slice_count(r);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->available()) << a->reason;
  EXPECT_EQ(a->value, 4);
  EXPECT_NE(a->method.find("reductions"), std::string::npos) << a->method;
  EXPECT_GT(a->confidence.value_or(0), 0.9);
  ASSERT_TRUE(a->interval.has_value());
  EXPECT_EQ(a->interval->lo, 4);
  EXPECT_EQ(a->interval->hi, 4);
  // Address masks 0x440 and 0x80: address bits 6, 7 and 10 move lines between slices.
  EXPECT_EQ(a->evidence["addressBitsThatMoveLines"].get<std::vector<int>>(),
            (std::vector<int>{6, 7, 10}));
  EXPECT_TRUE(a->evidence["hashLinear"].get<bool>());
  EXPECT_EQ(a->evidence["hashMasks"].size(), 2u);
  // The map: each SM's reduction latency to each slice (classes 0-3 are slices 0-3 here), SMs and
  // slices along one line 30 cycles end to end, so SM 0 is nearest slice 0 and SM 5 slice 3.
  ASSERT_EQ(r.topology.slices.size(), 4u);
  EXPECT_EQ(r.topology.slices.front().near_sms, (model::SmList{0}));
  EXPECT_EQ(r.topology.slices.back().near_sms, (model::SmList{5}));
  const auto* spread = spread_of(r);
  ASSERT_NE(spread, nullptr);
  ASSERT_TRUE(spread->available()) << spread->reason;
  EXPECT_NE(spread->method.find("atom.global.add"), std::string::npos) << spread->method;
  EXPECT_NEAR(spread->value.get<double>(), 24, 1.5);
  ASSERT_TRUE(spread->interval.has_value());
  EXPECT_LE(spread->interval->lo, 24);
  EXPECT_GE(spread->interval->hi, 23);
  EXPECT_EQ(spread->evidence["cyclesBySmAndSlice"].size(), 6u);
}

TEST(L2SlicesSim, WithoutAReductionRateTheLatencyClassesSayWhy) {
  const Result r = slices_of(toy_l2(nlohmann::json::object()));
  const auto* a = slice_count(r);
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->evidence["noContention"].get<std::string>().find("slice_reductions_per_ns"),
            std::string::npos);
}

}  // namespace
}  // namespace gputopo::discovery
