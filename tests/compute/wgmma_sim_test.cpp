#include <gtest/gtest.h>

#include <string>

#include "../discovery/result_access.hpp"
#include "device/compute_request.hpp"
#include "device/sim/sim_device.hpp"

// The wgmma probe end to end on the simulator: every type at its configured rate, each in
// FLOP per clock per SM from the operations of its instruction; GPUs other than 9.0 say why.
namespace gputopo::discovery {
namespace {

double value(const Result& r, const std::string& key) {
  const auto* a = model::find(r.compute, key);
  EXPECT_TRUE(a && a->available()) << key << ": " << (a ? a->reason : "absent");
  return a && a->available() ? a->value.get<double>() : 0;
}

TEST(WgmmaSim, EveryTypeAtItsConfiguredRate) {
  auto cfg = device::sim::load_config("h100-sxm");
  auto& rows = cfg.compute->pipelines;
  rows[static_cast<std::size_t>(device::ComputeOp::WgmmaE4M3)]->per_clk_per_sm = 0.75;
  rows[static_cast<std::size_t>(device::ComputeOp::WgmmaE5M2)]->per_clk_per_sm = 0.5;
  const Result r = testing::discover_config(cfg, {"wgmma"}, 5);
  for (const auto op :
       {device::ComputeOp::WgmmaBf16, device::ComputeOp::WgmmaE4M3, device::ComputeOp::WgmmaE5M2}) {
    const auto& o = device::op_info(op);
    const double rate = cfg.compute->pipeline(op)->per_clk_per_sm;
    const std::string name(o.name);
    EXPECT_NEAR(value(r, name + "Throughput"), rate, 0.02 * rate) << name;
    const double flops = rate * o.warp_flops / 32;
    EXPECT_NEAR(value(r, name + "PerClkPerSm"), flops, 0.02 * flops) << name;
  }
}

TEST(WgmmaSim, AGpuOtherThanComputeCapability90SaysWhy) {
  const Result r = testing::discover_config(device::sim::load_config("a100"), {"wgmma"}, 5);
  for (const char* key : {"wgmmaBf16Throughput", "wgmmaE4m3Tflops", "wgmmaE5m2PerClkPerSm"}) {
    const auto* a = model::find(r.compute, key);
    ASSERT_NE(a, nullptr) << key;
    EXPECT_FALSE(a->available());
    EXPECT_NE(a->reason.find("9.0"), std::string::npos) << a->reason;
  }
}

}  // namespace
}  // namespace gputopo::discovery
