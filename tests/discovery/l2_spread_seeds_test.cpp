#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "device/sim/chase_engine.hpp"
#include "device/sim/sim_device.hpp"
#include "result_access.hpp"

// End to end on the noisy preset (L2 hits jittered by 12 cycles against 12 cycles between TPCs):
// the spread between SMs over several seeds is unbiased and its interval holds the truth.
namespace gputopo::discovery {
namespace {

using testing::attr;
using testing::number;

TEST(L2SpreadSeeds, TheSpreadBetweenSmsIsUnbiasedUnderNoise) {
  const auto cfg = device::sim::load_config("noisy");
  device::sim::ChaseEngine engine(cfg);
  double lo = 1e9;
  double hi = -1e9;
  for (int s = 0; s < cfg.device.sm_count; ++s) {
    lo = std::min(lo, engine.sm_l2_offset(s));
    hi = std::max(hi, engine.sm_l2_offset(s));
  }
  const double truth = hi - lo;
  double error = 0;
  int inside = 0;
  constexpr int kSeeds = 6;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const Result& r = testing::discover_preset("noisy", {"l2"}, seed).result;
    const auto* by_sm = attr(r, "l2", "nearLatencyBySm");
    ASSERT_NE(by_sm, nullptr);
    ASSERT_TRUE(by_sm->available()) << by_sm->reason;
    ASSERT_TRUE(by_sm->interval.has_value());
    error += number(by_sm) - truth;
    inside += by_sm->interval->lo <= truth && truth <= by_sm->interval->hi ? 1 : 0;
  }
  EXPECT_LT(std::abs(error / kSeeds), 1.0);
  EXPECT_GE(inside, kSeeds - 2);  // a 90 % interval
}

}  // namespace
}  // namespace gputopo::discovery
