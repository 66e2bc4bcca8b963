#include <gtest/gtest.h>

#include <string>

#include "../discovery/result_access.hpp"
#include "device/compute_request.hpp"
#include "device/sim/sim_device.hpp"

// The divergence probe end to end on the simulator: a path's body is 16 FFMAs of the configured
// latency, and the paths of a warp run one after another.
namespace gputopo::discovery {
namespace {

TEST(DivergenceSim, EachMorePathCostsOneBody) {
  for (const char* preset : {"h100-sxm", "a100"}) {
    SCOPED_TRACE(preset);
    const auto cfg = device::sim::load_config(preset);
    const double ffma = cfg.compute->pipeline(device::ComputeOp::DivergeSpread)->latency_cycles;
    const Result r = testing::discover_config(cfg, {"divergence"}, 5);
    const auto* a = model::find(r.compute, "divergenceCyclesPerPath");
    ASSERT_TRUE(a && a->available()) << (a ? a->reason : "absent");
    EXPECT_NEAR(a->value.get<double>(), 16 * ffma, 0.5);
    EXPECT_GE(*a->confidence, 0.9);
    ASSERT_TRUE(a->interval);
    EXPECT_LE(a->interval->lo, a->value.get<double>() + 1e-9);
    const auto& rows = a->evidence["byPaths"];
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(rows.back()["paths"], 32);
    // One path: Spread and Uniform are the same loop on the same path; no first-divergence cost.
    EXPECT_NEAR(rows.front()["extraCycles"].get<double>(), 0, 0.5);
    EXPECT_NEAR(a->evidence["firstDivergenceCycles"].get<double>(), 0, 1.0);
  }
}

TEST(DivergenceSim, TheCodeAfterTheBranchRunsOnceWhereThePathsRejoin) {
  for (const bool rejoin : {true, false}) {
    SCOPED_TRACE(rejoin);
    auto cfg = device::sim::load_config("h100-sxm");
    cfg.compute->reconverge = rejoin;
    const Result r = testing::discover_config(cfg, {"divergence"}, 5);
    const auto* a = model::find(r.compute, "divergenceReconverges");
    ASSERT_TRUE(a && a->available()) << (a ? a->reason : "absent");
    EXPECT_EQ(a->value, rejoin);
    EXPECT_NEAR(a->evidence["ratio"].get<double>(), rejoin ? 1.0 : 32.0, 0.1);
  }
}

TEST(DivergenceSim, WithoutAComputeModelItSaysWhy) {
  const Result r = testing::discover_config(device::sim::load_config("toy"), {"divergence"}, 5);
  const auto* a = model::find(r.compute, "divergenceCyclesPerPath");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->available());
  EXPECT_FALSE(a->reason.empty());
}

TEST(DivergenceSim, PathsArePowersOfTwoUpTo32AndOneChainPerThread) {
  const device::DeviceInfo h100 = testing::h100_info();
  for (const std::uint32_t bad : {0u, 3u, 64u}) {
    const device::ComputeRequest r{device::ComputeOp::DivergeSpread, 32, 1, 1, 1, bad};
    EXPECT_TRUE(device::compute_problem(r, h100)) << bad;
  }
  device::ComputeRequest r{device::ComputeOp::DivergeUniform, 32, 1, 1, 1, 8};
  EXPECT_FALSE(device::compute_problem(r, h100));
  r.ilp = 2;
  EXPECT_TRUE(device::compute_problem(r, h100));
  EXPECT_TRUE(device::op_info(device::ComputeOp::DivergeSpread).own_probe);
}

}  // namespace
}  // namespace gputopo::discovery
