#include <gtest/gtest.h>

#include <string>

#include "../discovery/result_access.hpp"
#include "device/sim/sim_device.hpp"

// The constant-sharing probe end to end on the simulator: which instruction-cache level the
// constant L1.5 is, if any, and the L1.5's size where the constant space cannot reach it.
namespace gputopo::discovery {
namespace {

Result sharing_full_depth(const device::sim::SimConfig& cfg) {
  auto dev = device::sim::make_device(cfg, 7);
  NullProgress progress;
  Options o;
  o.only = {"constantSharing", "constantL15.size"};
  o.depth = Depth::Full;
  return discover(*dev, o, progress, nullptr);
}

const model::Attribute* l15_size(const Result& r) {
  for (const auto& e : r.memory)
    if (e.key == "constantL15") return model::find(e.attributes, "size");
  return nullptr;
}

TEST(ConstantSharingSim, FindsTheLevelThatHoldsConstantsAndSizesTheL15ByIt) {
  const auto cfg = device::sim::load_config("h100-sxm");
  const Result r = sharing_full_depth(cfg);
  const auto* a = model::find(r.compute, "instructionCacheHoldsConstants");
  ASSERT_TRUE(a && a->available()) << (a ? a->reason : "absent");
  EXPECT_EQ(a->value, true);
  EXPECT_EQ(a->evidence["level"], 2);
  EXPECT_GE(a->confidence.value_or(0), 0.9);
  // Level 1 was tested too, and found apart.
  EXPECT_LT(a->evidence["tests"][0]["extraShareOfChase"].get<double>(), 0.1);
  // 128 KiB, beyond the 64 KiB constant space: known from the level.
  const auto* size = l15_size(r);
  ASSERT_TRUE(size && size->available());
  EXPECT_EQ(size->value.get<double>(), 131072);
  ASSERT_TRUE(size->interval);
  EXPECT_GT(size->interval->hi, 131072);
  EXPECT_EQ(size->evidence["fromConstantLoads"]["value"], 65536.0);
}

TEST(ConstantSharingSim, SaysNoWhereNoLevelHoldsConstants) {
  const Result r = sharing_full_depth(device::sim::load_config("a100"));
  const auto* a = model::find(r.compute, "instructionCacheHoldsConstants");
  ASSERT_TRUE(a && a->available()) << (a ? a->reason : "absent");
  EXPECT_EQ(a->value, false);
  EXPECT_EQ(a->evidence["tests"].size(), 2u);
  // The L1.5's size stays what constant loads could show: at least the constant space.
  const auto* size = l15_size(r);
  ASSERT_TRUE(size && size->interval);
  EXPECT_EQ(size->value.get<double>(), 65536);
}

TEST(ConstantSharingSim, FindsASmallL15AsTheFirstLevel) {
  auto cfg = device::sim::load_config("h100-sxm");
  auto& levels = cfg.compute->instruction_caches;
  levels[1].holds_constants = false;
  levels[0].holds_constants = true;
  for (auto& c : cfg.caches)
    if (c.name == "constant_l15") c.geometry.size_bytes = levels[0].size_bytes;
  const Result r = sharing_full_depth(cfg);
  const auto* a = model::find(r.compute, "instructionCacheHoldsConstants");
  ASSERT_TRUE(a && a->available()) << (a ? a->reason : "absent");
  EXPECT_EQ(a->value, true);
  EXPECT_EQ(a->evidence["level"], 1);
  // Constant loads measure a 32 KiB L1.5 themselves: its size is theirs.
  const auto* size = l15_size(r);
  ASSERT_TRUE(size && size->available());
  EXPECT_EQ(size->evidence.value("instructionCacheLevel", 0), 0);
}

TEST(ConstantSharingSim, QuickDepthSaysWhy) {
  const Result r =
      testing::discover_config(device::sim::load_config("h100-sxm"), {"constantSharing"}, 7);
  const auto* a = model::find(r.compute, "instructionCacheHoldsConstants");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->available());
  EXPECT_NE(a->reason.find("--depth full"), std::string::npos);
}

}  // namespace
}  // namespace gputopo::discovery
