#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../discovery/result_access.hpp"
#include "device/compute_request.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/probes/compute/op_keys.hpp"
#include "discovery/probes/compute/pipeline_probe.hpp"

// End to end on the simulator: the pipeline probe recovers every configured latency and
// throughput within 2 %, on the presets with a compute table and on a perturbed configuration.
namespace gputopo::discovery {
namespace {

using device::sim::SimConfig;

Result pipelines_on(SimConfig config, std::uint64_t seed = 7) {
  return testing::discover_config(std::move(config), {"pipelines"}, seed);
}

// What the probe's throughput shape (32 warps, 8 chains per thread) can reach on the simulated
// pipe: the configured rate, unless the chains' latency or the schedulers' issue bound it first
// (docs/sim.md, "compute").
struct Reach {
  double rate = 0;
  bool latency_bound = false;
};
Reach reachable(const device::sim::ComputeSpec& c, device::ComputeOp op) {
  const auto& p = *c.pipeline(op);
  const auto& o = device::op_info(op);
  const double chains = 32.0 * 32 * kThroughputIlp;
  const double per_step = o.per_step;
  const double issued = per_step + (o.extra.empty() ? 0 : 1);
  const double wps = std::ceil(32.0 / c.schedulers_per_sm);
  const double latency = per_step * p.latency_cycles;
  const double pipe = chains * per_step / p.per_clk_per_sm;
  const double issue = wps * (kThroughputIlp * issued + c.trip_overhead_cycles / 32);
  const double step = std::max({latency, pipe, issue});
  return {chains * per_step / step, latency >= pipe && latency >= issue};
}

void expect_table(const Result& r, const SimConfig& config) {
  ASSERT_TRUE(config.compute);
  const auto* all = model::find(r.compute, "pipelines");
  ASSERT_NE(all, nullptr);
  ASSERT_TRUE(all->available()) << all->reason;
  for (const device::ComputeOp op : device::all_compute_ops()) {
    if (device::op_info(op).own_probe) continue;  // barrier_sim_test.cpp, divergence_sim_test.cpp
    const auto& truth = config.compute->pipeline(op);
    const std::string name(device::to_string(op));
    const auto* lat = model::find(r.compute, op_keys(op).latency->str());
    const auto* thr = model::find(r.compute, op_keys(op).throughput->str());
    if (!truth) {
      // Absent, or (a tensor-core op the GPU lacks) unavailable with the reason.
      if (lat != nullptr) {
        EXPECT_FALSE(lat->available()) << name;
        EXPECT_FALSE(lat->reason.empty()) << name;
        EXPECT_GT(device::op_info(op).warp_flops, 0u) << name;
      }
      continue;
    }
    ASSERT_NE(lat, nullptr) << name;
    ASSERT_NE(thr, nullptr) << name;
    ASSERT_TRUE(lat->available()) << name << ": " << lat->reason;
    ASSERT_TRUE(thr->available()) << name << ": " << thr->reason;
    EXPECT_NEAR(lat->value.get<double>(), truth->latency_cycles, 0.02 * truth->latency_cycles)
        << name;
    const Reach reach = reachable(*config.compute, op);
    EXPECT_NEAR(thr->value.get<double>(), reach.rate, 0.02 * reach.rate) << name;
    EXPECT_EQ(thr->evidence.contains("latencyBound"), reach.latency_bound) << name;
    if (const auto flops = device::op_info(op).warp_flops; flops > 0) {
      const auto* per_clk = model::find(r.compute, op_keys(op).per_clk->str());
      const auto* tflops = model::find(r.compute, op_keys(op).tflops->str());
      ASSERT_NE(per_clk, nullptr) << name;
      ASSERT_NE(tflops, nullptr) << name;
      ASSERT_TRUE(per_clk->available() && tflops->available()) << name;
      const double ops = reach.rate * flops / 32;
      EXPECT_NEAR(per_clk->value.get<double>(), ops, 0.02 * ops) << name;
      const double at_clock = ops * config.device.sm_count * config.device.sm_clock_max_mhz / 1e6;
      EXPECT_NEAR(tflops->value.get<double>(), at_clock, 0.02 * at_clock) << name;
    }
    EXPECT_GE(*lat->confidence, 0.5) << name;
    EXPECT_GE(*thr->confidence, 0.5) << name;
    EXPECT_EQ(lat->evidence["sass"], std::string(device::op_info(op).sass)) << name;
    ASSERT_TRUE(lat->interval) << name;
    EXPECT_LE(lat->interval->lo, lat->value.get<double>()) << name;
    EXPECT_GE(lat->interval->hi, lat->value.get<double>()) << name;
  }
}

class PipelineSim : public ::testing::TestWithParam<std::string> {};

TEST_P(PipelineSim, RecoversTheConfiguredTable) {
  const SimConfig config = device::sim::load_config(GetParam());
  expect_table(pipelines_on(config), config);
}

INSTANTIATE_TEST_SUITE_P(Presets, PipelineSim, ::testing::Values("h100-sxm", "h200", "a100"),
                         [](const auto& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// Every latency and throughput moved by its own factor, more schedulers, more noise: nothing in
// the probe is tuned to one preset's numbers.
TEST(PipelineSimPerturbed, RecoversAnotherTable) {
  SimConfig config = device::sim::load_config("h100-sxm");
  ASSERT_TRUE(config.compute);
  int i = 0;
  for (auto& row : config.compute->pipelines) {
    if (!row) continue;
    row->latency_cycles = row->latency_cycles * (0.6 + 0.13 * (i % 7)) + 1;
    row->per_clk_per_sm = std::clamp(row->per_clk_per_sm * (0.45 + 0.21 * (i % 5)), 0.5, 64.0);
    ++i;
  }
  config.compute->schedulers_per_sm = 2;
  config.compute->jitter_cycles = 8;
  config.compute->overhead_cycles = 300;
  expect_table(pipelines_on(config, 11), config);
}

TEST(PipelineSimUnmodelled, SaysWhyEveryRowIsMissing) {
  const Result r = pipelines_on(device::sim::load_config("toy"));
  const auto* ffma = model::find(r.compute, "ffmaLatency");
  ASSERT_NE(ffma, nullptr);
  EXPECT_FALSE(ffma->available());
  EXPECT_NE(ffma->reason.find("compute"), std::string::npos) << ffma->reason;
  const auto* all = model::find(r.compute, "pipelines");
  ASSERT_NE(all, nullptr);
  EXPECT_FALSE(all->available());
}

}  // namespace
}  // namespace gputopo::discovery
