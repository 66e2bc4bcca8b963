#include <gtest/gtest.h>

#include <string>

#include "../discovery/result_access.hpp"
#include "device/sim/sim_device.hpp"

// The instruction-cache probe end to end on the simulator: every configured level is found, its
// size inside the interval the doubling sweep gives, halved three times.
namespace gputopo::discovery {
namespace {

Result full_depth(const device::sim::SimConfig& cfg) {
  auto dev = device::sim::make_device(cfg, 5);
  NullProgress progress;
  Options o;
  o.only = {"instructionCaches"};
  o.depth = Depth::Full;
  return discover(*dev, o, progress, nullptr);
}

TEST(IcacheSim, EveryLevelLiesInItsInterval) {
  for (const char* preset : {"h100-sxm", "a100"}) {
    SCOPED_TRACE(preset);
    const auto cfg = device::sim::load_config(preset);
    const auto& levels = cfg.compute->instruction_caches;
    const Result r = full_depth(cfg);
    const auto* a = model::find(r.compute, "instructionCacheSizes");
    ASSERT_TRUE(a && a->available()) << (a ? a->reason : "absent");
    ASSERT_EQ(a->value.size(), levels.size());
    for (std::size_t i = 0; i < levels.size(); ++i) {
      EXPECT_LE(a->value[i][0].get<double>(), static_cast<double>(levels[i].size_bytes));
      EXPECT_GT(a->value[i][1].get<double>(), static_cast<double>(levels[i].size_bytes));
    }
  }
}

TEST(IcacheSim, BisectsALevelToAnEighthOfItsDoubling) {
  auto cfg = device::sim::load_config("a100");
  cfg.compute->instruction_caches[1].size_bytes = 96 * 1024;
  const Result r = full_depth(cfg);
  const auto* a = model::find(r.compute, "instructionCacheSizes");
  ASSERT_TRUE(a && a->available()) << (a ? a->reason : "absent");
  ASSERT_EQ(a->value.size(), 2u);
  // 64 to 128 KiB after doubling; 96, 112 and 104 KiB after it.
  EXPECT_EQ(a->value[1], (model::Json{96.0 * 1024, 104.0 * 1024}));
}

TEST(IcacheSim, OneLevelMoreWhereTheConfigurationHasOne) {
  auto cfg = device::sim::load_config("h100-sxm");
  cfg.compute->instruction_caches.insert(cfg.compute->instruction_caches.begin(), {8192, 0.25});
  const Result r = full_depth(cfg);
  const auto* a = model::find(r.compute, "instructionCacheSizes");
  ASSERT_TRUE(a && a->available());
  ASSERT_EQ(a->value.size(), 3u);
  EXPECT_EQ(a->value[0][0].get<double>(), 8192);
}

TEST(IcacheSim, QuickDepthSaysWhy) {
  const Result r =
      testing::discover_config(device::sim::load_config("h100-sxm"), {"instructionCaches"}, 5);
  const auto* a = model::find(r.compute, "instructionCacheSizes");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->available());
  EXPECT_NE(a->reason.find("--depth full"), std::string::npos);
}

}  // namespace
}  // namespace gputopo::discovery
