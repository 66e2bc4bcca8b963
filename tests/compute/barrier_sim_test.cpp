#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../discovery/result_access.hpp"
#include "device/compute_request.hpp"
#include "device/sim/sim_device.hpp"

// The barrier probe end to end on the simulator: the configured barSync row is the truth.
namespace gputopo::discovery {
namespace {

// The simulator's cycles per barrier step of one block of `warps` warps (docs/compute.md).
double modelled(const device::sim::SimConfig& cfg, std::uint32_t warps) {
  const auto& c = *cfg.compute;
  const auto& p = *c.pipeline(device::ComputeOp::BarSync);
  const double issue = std::ceil(static_cast<double>(warps) / c.schedulers_per_sm) * 2.0;
  return std::max({p.latency_cycles, 32.0 * warps / p.per_clk_per_sm, issue});
}

TEST(BarrierSim, RecoversTheConfiguredBarrierForOneWarpAndAFullBlock) {
  for (const char* preset : {"h100-sxm", "a100"}) {
    SCOPED_TRACE(preset);
    auto cfg = device::sim::load_config(preset);
    // Make the full block cost more than one warp: 8 warps a clock would hide it.
    cfg.compute->pipelines[static_cast<std::size_t>(device::ComputeOp::BarSync)]->per_clk_per_sm =
        16;
    const Result r = testing::discover_config(cfg, {"barriers"}, 5);
    const auto* one = model::find(r.compute, "syncthreadsLatency");
    const auto* full = model::find(r.compute, "syncthreadsBlockLatency");
    ASSERT_TRUE(one && one->available()) << (one ? one->reason : "absent");
    ASSERT_TRUE(full && full->available()) << (full ? full->reason : "absent");
    EXPECT_NEAR(one->value.get<double>(), modelled(cfg, 1), 0.5);
    EXPECT_NEAR(full->value.get<double>(), modelled(cfg, 32), 0.5);
    EXPECT_GT(full->value.get<double>(), one->value.get<double>());
    const auto& by_warps = full->evidence["byWarps"];
    ASSERT_EQ(by_warps.size(), 6u);  // 1, 2, 4, 8, 16, 32
    EXPECT_EQ(by_warps.back()["warps"], 32);
    ASSERT_TRUE(one->interval);
    EXPECT_LE(one->interval->lo, one->value.get<double>());
  }
}

TEST(BarrierSim, WithoutAComputeModelBothSayWhy) {
  const Result r = testing::discover_config(device::sim::load_config("toy"), {"barriers"}, 5);
  const auto* one = model::find(r.compute, "syncthreadsLatency");
  ASSERT_NE(one, nullptr);
  EXPECT_FALSE(one->available());
  EXPECT_FALSE(one->reason.empty());
}

TEST(BarrierSim, ABarrierRunsOneChainPerThreadAndThePipelinesLeaveItOut) {
  const device::DeviceInfo h100 = testing::h100_info();
  device::ComputeRequest r{device::ComputeOp::BarSync, 256, 2, 4, 1, std::nullopt};
  ASSERT_TRUE(device::compute_problem(r, h100));
  EXPECT_NE(device::compute_problem(r, h100)->find("ilp 1"), std::string::npos);
  r.ilp = 1;
  EXPECT_FALSE(device::compute_problem(r, h100));
  EXPECT_TRUE(device::op_info(device::ComputeOp::BarSync).own_probe);
  const Result p = testing::discover_config(device::sim::load_config("h100-sxm"), {"pipelines"}, 5);
  EXPECT_EQ(model::find(p.compute, "barSyncLatency"), nullptr);
}

}  // namespace
}  // namespace gputopo::discovery
