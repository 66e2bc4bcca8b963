#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "device/sim/chase_engine.hpp"
#include "device/sim/sim_device.hpp"
#include "model/attribute.hpp"
#include "result_access.hpp"

// End to end on the rare-slow-load presets (docs/sim.md): slow-loads (one load in a hundred held
// up by 200-6000 cycles, jitter three to four times the other presets') and sm-outliers (per-SM
// L2 latencies among one outlier in two hundred). Every latency is the load's, within 5 %; no TLB
// is claimed at 0.5 or more on a GPU without one; each SM's L2 latency is its loads' within a
// cycle, their spread within 5 % and the TPC count exact.
namespace gputopo::discovery {
namespace {

using testing::attr;
using testing::number;

// The latency attribute is within 5 % of `truth`.
void expect_latency(const Result& r, const std::string& element, const std::string& key,
                    double truth) {
  SCOPED_TRACE(element + "." + key);
  const auto* a = attr(r, element, key);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->available()) << a->reason;
  const double error = std::abs(number(a) - truth) / truth;
  EXPECT_LT(error, 0.05) << number(a) << " against " << truth;
}

TEST(SlowLoads, LatenciesAreTheLoadsNotTheInterruptions) {
  const auto cfg = device::sim::load_config("slow-loads");
  const device::sim::ChaseEngine engine(cfg);
  const Result& r =
      testing::discover_preset(
          "slow-loads", {"l1", "readOnly", "texture", "constantL1", "shared", "l2", "dram", "tlb"})
          .result;
  const auto cache = [&](const std::string& name) {
    for (const auto& c : cfg.caches)
      if (c.name == name) return c;
    ADD_FAILURE() << "no cache " << name;
    return device::sim::CacheSpec{};
  };
  expect_latency(r, "l1", "latency", cache("l1").latency_cycles);
  expect_latency(r, "readOnly", "latency",
                 cache("l1").latency_cycles + cfg.space(device::Space::ReadOnly).extra_cycles);
  expect_latency(r, "texture", "latency", cache("tex").latency_cycles);
  expect_latency(r, "constantL1", "latency", cache("constant_l1").latency_cycles);
  expect_latency(r, "shared", "latency", cfg.shared.latency_cycles);
  const double offset = engine.sm_l2_offset(0);
  expect_latency(r, "l2", "nearLatency", cfg.l2.near_latency_by_segment[0] + offset);
  expect_latency(r, "dram", "latency", cfg.dram.latency_cycles + offset);
  // No TLB is configured: none may be claimed.
  const auto* levels = attr(r, "tlb", "tlbLevels");
  ASSERT_NE(levels, nullptr);
  EXPECT_FALSE(levels->available() && levels->confidence.value_or(0) >= 0.5)
      << "a TLB level claimed at " << levels->confidence.value_or(0) << " on a GPU without one";
}

TEST(SmOutliers, PerSmLatenciesAndTheTpcsSurviveOutliers) {
  const auto cfg = device::sim::load_config("sm-outliers");
  const device::sim::ChaseEngine engine(cfg);
  const Result& r = testing::discover_preset("sm-outliers", {"l2"}).result;
  const auto* by_sm = attr(r, "l2", "nearLatencyBySm");
  ASSERT_NE(by_sm, nullptr);
  ASSERT_TRUE(by_sm->available()) << by_sm->reason;
  double lo = 1e9;
  double hi = -1e9;
  const auto& per = by_sm->evidence["perSm"];
  for (int sm = 0; sm < cfg.device.sm_count; ++sm) {
    const double truth = cfg.l2.near_latency_by_segment[static_cast<std::size_t>(
                             cfg.l2.sm_segment[static_cast<std::size_t>(sm)])] +
                         engine.sm_l2_offset(sm);
    lo = std::min(lo, engine.sm_l2_offset(sm));
    hi = std::max(hi, engine.sm_l2_offset(sm));
    // Each SM's value is its loads' latency, within a cycle.
    EXPECT_NEAR(per[static_cast<std::size_t>(sm)].get<double>(), truth, 1.0) << "SM " << sm;
  }
  EXPECT_NEAR(number(by_sm), hi - lo, 1.0);  // a difference of two latencies, each within a cycle
  const auto* tpcs = model::find(r.compute, "tpcCount");
  ASSERT_NE(tpcs, nullptr);
  ASSERT_TRUE(tpcs->available()) << tpcs->reason;
  const int truth = cfg.device.sm_count / cfg.layout.sms_per_tpc;
  EXPECT_EQ(number(tpcs), truth);
}

}  // namespace
}  // namespace gputopo::discovery
