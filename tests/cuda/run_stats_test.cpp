#include "device/cuda/plan/run_stats.hpp"

#include <gtest/gtest.h>

namespace gputopo::device::cuda {
namespace {

TEST(RunStats, ClockChangeNeedsBothReadingsAndMoreThanTwoPercent) {
  EXPECT_FALSE(clock_changed(std::nullopt, 1980.0));
  EXPECT_FALSE(clock_changed(1980.0, std::nullopt));
  EXPECT_FALSE(clock_changed(1980.0, 1980.0));
  EXPECT_FALSE(clock_changed(1980.0, 1965.0));
  EXPECT_TRUE(clock_changed(1980.0, 1755.0));
  EXPECT_TRUE(clock_changed(345.0, 1980.0));
}

TEST(RunStats, MedianIgnoresOutliers) {
  EXPECT_EQ(median_cycles({}), 0.0);
  EXPECT_EQ(median_cycles({7}), 7.0);
  EXPECT_EQ(median_cycles({18, 18, 5000, 19, 18}), 18.0);
  EXPECT_EQ(median_cycles({10, 20, 30, 40}), 25.0);
}

TEST(RunStats, ClockRateFromSpans) {
  EXPECT_DOUBLE_EQ(cycles_per_ns(1000, 3000, 0, 1000), 2.0);
  EXPECT_EQ(cycles_per_ns(1000, 3000, 5, 5), 0.0);
  EXPECT_EQ(cycles_per_ns(3000, 1000, 0, 10), 0.0);
}

}  // namespace
}  // namespace gputopo::device::cuda
