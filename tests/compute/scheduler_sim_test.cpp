#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "../discovery/result_access.hpp"
#include "device/compute_op.hpp"
#include "device/sim/sim_device.hpp"

// The warp-scheduler probe end to end on the simulator, whose compute model times a block as the
// probe's fit models it (latency floor, issue per scheduler, SM pipe); the configured
// schedulers_per_sm is the truth.
namespace gputopo::discovery {
namespace {

using device::sim::SimConfig;

int found(SimConfig config) {
  const Result r = testing::discover_config(std::move(config), {"warpSchedulers"}, 11);
  const auto* a = model::find(r.compute, "warpSchedulers");
  if (a == nullptr || !a->available()) {
    ADD_FAILURE() << (a ? a->reason : "no warpSchedulers");
    return 0;
  }
  EXPECT_GT(*a->confidence, 0.5);
  return static_cast<int>(a->value.get<double>());
}

TEST(SchedulerSim, FindsTheConfiguredCountOnThePresetsWhosePipeKeepsUp) {
  for (const char* preset : {"h100-sxm", "h200"}) {
    const SimConfig config = device::sim::load_config(preset);
    EXPECT_EQ(found(config), config.compute->schedulers_per_sm) << preset;
  }
}

// The simulated A100's FFMA pipe (64 a clock per SM) fills with two warps of four schedulers: the
// simulator's pipes are per SM, so more schedulers cannot show, and the probe says so.
TEST(SchedulerSim, APipeThatFillsFirstLeavesTheCountOpenWithTheTruthAmongTheCandidates) {
  const Result r =
      testing::discover_config(device::sim::load_config("a100"), {"warpSchedulers"}, 11);
  const auto* a = model::find(r.compute, "warpSchedulers");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->available());
  const auto counts = a->evidence.at("consistentCounts").get<std::vector<int>>();
  EXPECT_NE(std::find(counts.begin(), counts.end(), 4), counts.end()) << a->evidence.dump();
}

// An SM whose FFMA pipe keeps up with all of its schedulers (32 lanes each).
SimConfig with_schedulers(int s) {
  SimConfig config = device::sim::load_config("h100-sxm");
  config.compute->schedulers_per_sm = s;
  config.compute->pipelines[static_cast<std::size_t>(device::ComputeOp::FFma32)]->per_clk_per_sm =
      32.0 * s;
  return config;
}

TEST(SchedulerSim, FindsEveryCountFromTwoToSixteen) {
  for (int s = 2; s <= 16; ++s) EXPECT_EQ(found(with_schedulers(s)), s) << s;
}

// Chains of latency 20 over 8 issues: flat up to 8 warps, then the third warp of a scheduler
// shows.
TEST(SchedulerSim, ALatencyFloorHidesTheFirstStepsButNotTheCount) {
  SimConfig config = with_schedulers(4);
  config.compute->pipelines[static_cast<std::size_t>(device::ComputeOp::FFma32)]->latency_cycles =
      20;
  EXPECT_EQ(found(config), 4);
}

// One scheduler issuing every warp looks the same as an SM pipe that one warp fills.
TEST(SchedulerSim, OneSchedulerIsNotTakenForAPipeLimit) {
  const Result r = testing::discover_config(with_schedulers(1), {"warpSchedulers"}, 5);
  const auto* a = model::find(r.compute, "warpSchedulers");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->available());
  EXPECT_NE(a->reason.find("several scheduler counts"), std::string::npos) << a->reason;
}

TEST(SchedulerSim, WithoutAComputeModelSaysWhy) {
  const Result r = testing::discover_config(device::sim::load_config("toy"), {"warpSchedulers"}, 3);
  const auto* a = model::find(r.compute, "warpSchedulers");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->available());
  EXPECT_FALSE(a->reason.empty());
}

}  // namespace
}  // namespace gputopo::discovery
