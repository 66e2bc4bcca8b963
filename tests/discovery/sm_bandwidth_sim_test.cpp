#include <gtest/gtest.h>

#include <algorithm>

#include "device/sim/sim_device.hpp"
#include "result_access.hpp"
#include "sim_truth.hpp"

// End to end: the SMs' L1 and shared-memory read bandwidth on every simulator preset, per SM clock
// and for the whole GPU, against the configured bytes per clock.
namespace gputopo::discovery {
namespace {

using testing::attr;
using testing::number;

class SmBandwidthSim : public ::testing::TestWithParam<std::string> {};

TEST_P(SmBandwidthSim, PerSmReadBandwidthMatchesTheConfiguration) {
  const auto cfg = device::sim::load_config(GetParam());
  const std::string shared = testing::shared_element(cfg);
  const Result& r = testing::discover_preset(GetParam(), {"l1", shared}).result;
  ASSERT_TRUE(r.completed);
  const std::pair<std::string, double> expected[] = {
      {"l1", cfg.bandwidth.l1_read_bytes_per_clk},
      {shared, cfg.bandwidth.shared_read_bytes_per_clk}};
  for (const auto& [element, per_clk] : expected) {
    SCOPED_TRACE(element);
    const auto* per_sm = attr(r, element, "readBytesPerClkPerSm");
    const auto* whole = attr(r, element, "readBandwidth");
    ASSERT_NE(per_sm, nullptr);
    ASSERT_NE(whole, nullptr);
    if (per_clk <= 0) {
      EXPECT_FALSE(whole->available());
      continue;
    }
    ASSERT_TRUE(per_sm->available()) << per_sm->reason;
    // Each simulated launch adds its overhead: a few per cent below the configured rate.
    EXPECT_NEAR(number(per_sm), per_clk, 0.05 * per_clk);
    const double gbps = per_clk * cfg.device.sm_count * cfg.device.sm_clock_max_mhz / 1e3;
    EXPECT_NEAR(number(whole), gbps, 0.05 * gbps);
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, SmBandwidthSim, ::testing::ValuesIn(device::sim::preset_names()),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace gputopo::discovery
