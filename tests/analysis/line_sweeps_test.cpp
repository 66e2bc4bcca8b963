#include "analysis/line_sweeps.hpp"

#include <gtest/gtest.h>

namespace gputopo::analysis {
namespace {

Estimate reading(double value, double lo, double hi, double confidence) {
  return {.established = true,
          .value = value,
          .lo = lo,
          .hi = hi,
          .confidence = confidence,
          .reason = {}};
}

TEST(LineSweeps, OneConfidentSweepStands) {
  const auto e = combine_line_sweeps({reading(64, 40, 80, 0.97)}, 32);
  EXPECT_EQ(e.value, 64);
  EXPECT_EQ(e.confidence, 0.97);
}

TEST(LineSweeps, TheOnePowerOfTwoInBothIntervals) {
  // (16, 80] holds 32 and 64; (40, 96] only 64 of those.
  const auto e = combine_line_sweeps({reading(64, 16, 80, 0.5), reading(64, 40, 96, 0.5)}, 32);
  EXPECT_EQ(e.value, 64);
  EXPECT_EQ(e.lo, 40);
  EXPECT_EQ(e.hi, 80);
  EXPECT_EQ(e.confidence, 0.9);
}

// A step read at (9.6, 16] against one at (16, 80]: the intervals touch at 16, which the first
// excludes (the line lies above its lower end), so no line explains both.
TEST(LineSweeps, ContradictingSweepsAreNotTrusted) {
  const auto e = combine_line_sweeps({reading(64, 16, 80, 0.5), reading(16, 9.6, 16, 1.0)}, 8);
  ASSERT_TRUE(e.established);
  EXPECT_EQ(e.value, 16);
  EXPECT_LT(e.confidence, 0.5);
  EXPECT_NE(e.reason.find("share no power of two"), std::string::npos) << e.reason;
  const auto both = combine_line_sweeps({reading(64, 40, 80, 1.0), reading(16, 9.6, 16, 1.0)}, 8);
  EXPECT_EQ(both.confidence, 0);
}

TEST(LineSweeps, WithoutAnEstablishedSweepTheLastSaysWhy) {
  const auto e = combine_line_sweeps({Estimate{.reason = "a"}, Estimate{.reason = "b"}}, 32);
  EXPECT_FALSE(e.established);
  EXPECT_EQ(e.reason, "b");
  EXPECT_FALSE(combine_line_sweeps({}, 32).established);
}

}  // namespace
}  // namespace gputopo::analysis
