#include "discovery/probes/compute/slope.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

// The cost of one more step from spans at two chain lengths.
namespace gputopo::discovery {
namespace {

TEST(ComputeSlope, FixedCostsCancel) {
  const Slope s = cycles_per_step({1100, 1100, 1100}, {4172, 4172, 4172}, 256, 1024);
  EXPECT_DOUBLE_EQ(s.value, 4.0);
  EXPECT_DOUBLE_EQ(s.confidence, 1.0);
}

TEST(ComputeSlope, OneOutlierOfFiveLeavesValueAndRange) {
  const Slope s = cycles_per_step({100, 100, 100, 100, 100}, {868, 870, 868, 5000, 869}, 256, 1024);
  EXPECT_NEAR(s.value, 769.0 / 768, 1e-9);
  EXPECT_LT(s.hi, 1.2);
  EXPECT_GT(s.confidence, 0.9);
}

TEST(ComputeSlope, DisagreementLowersConfidence) {
  EXPECT_DOUBLE_EQ(cycles_per_step({0, 0}, {100, 120}, 0, 10).confidence, 0.0);
  EXPECT_NEAR(agreement(0.055), 0.5, 1e-12);
  EXPECT_THROW(cycles_per_step({}, {}, 0, 10), std::invalid_argument);
  EXPECT_THROW(cycles_per_step({1}, {2}, 10, 10), std::invalid_argument);
}

}  // namespace
}  // namespace gputopo::discovery
