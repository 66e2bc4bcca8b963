#include <gtest/gtest.h>

#include "../discovery/result_access.hpp"
#include "device/sim/sim_device.hpp"

// The register-read probe end to end on the simulator: the configured reads per clock, whatever
// they are, and "at least 3" where the third register costs nothing.
namespace gputopo::discovery {
namespace {

const model::Attribute& reads(const Result& r) {
  const auto* a = model::find(r.compute, "registerReadsPerClk");
  EXPECT_TRUE(a && a->available()) << (a ? a->reason : "absent");
  static const model::Attribute none;
  return a ? *a : none;
}

TEST(RegisterReadSim, TheConfiguredReadsPerClock) {
  for (const double configured : {2.0, 2.5}) {
    auto cfg = device::sim::load_config("h100-sxm");
    cfg.compute->register_reads_per_clk = configured;
    const Result r = testing::discover_config(cfg, {"registerReads"}, 5);
    const auto& a = reads(r);
    ASSERT_TRUE(a.available());
    EXPECT_NEAR(a.value.get<double>(), configured, 0.02 * configured);
    EXPECT_FALSE(a.evidence.at("atLeast").get<bool>());
    EXPECT_GT(a.confidence, 0.5);
  }
}

TEST(RegisterReadSim, AThirdRegisterThatCostsNothingGivesAtLeastThree) {
  const Result r = testing::discover_config(device::sim::load_config("a100"), {"registerReads"}, 5);
  const auto& a = reads(r);
  ASSERT_TRUE(a.available());
  EXPECT_NEAR(a.value.get<double>(), 3.0, 0.02 * 3);
  EXPECT_TRUE(a.evidence.at("atLeast").get<bool>());
  EXPECT_NE(a.method.find("at least 3"), std::string::npos);
}

TEST(RegisterReadSim, TheBanksAreNotMeasuredAndSaySo) {
  const Result r =
      testing::discover_config(device::sim::load_config("h100-sxm"), {"registerReads"}, 5);
  const auto* banks = model::find(r.compute, "registerBanks");
  ASSERT_NE(banks, nullptr);
  EXPECT_FALSE(banks->available());
  EXPECT_NE(banks->reason.find("PTX cannot choose"), std::string::npos) << banks->reason;
}

}  // namespace
}  // namespace gputopo::discovery
