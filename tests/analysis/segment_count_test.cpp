#include "analysis/segment_count.hpp"

#include <gtest/gtest.h>

namespace gputopo::analysis {
namespace {

constexpr double kMb = 1e6;
constexpr double kApi = 62914560;  // an H200's 60 MiB L2

Bounds at(double x) { return {x, x}; }

TEST(SegmentCount, AStepAtAFractionEstablishesItsCount) {
  const auto f = fit_segment_count(kApi / 2, at(kApi / 2), kApi, 16);
  EXPECT_EQ(f.count, 2);
  EXPECT_DOUBLE_EQ(f.value, kApi / 2);
  EXPECT_DOUBLE_EQ(f.separation, 1);
  EXPECT_DOUBLE_EQ(f.confidence, 1);
}

// The H200's usual step: 31.74 MB, its interval 31.2-32.2 MB.
TEST(SegmentCount, AnH200StepNearAHalfIsTwoSegments) {
  const auto f = fit_segment_count(31.74 * kMb, {31.2 * kMb, 32.2 * kMb}, kApi, 16);
  EXPECT_EQ(f.count, 2);
  EXPECT_GT(f.confidence, 0.9);
}

// 0.42 of the API size lies just past the midpoint between a half and a third (0.417): it is
// nearer a half, but not clearly enough to claim it.
TEST(SegmentCount, AStepBetweenTwoFractionsEstablishesNeither) {
  const auto f = fit_segment_count(0.42 * kApi, at(0.42 * kApi), kApi, 16);
  EXPECT_EQ(f.count, 2);
  EXPECT_LT(f.confidence, 0.5);
  EXPECT_EQ(f.rival, 3);
  EXPECT_DOUBLE_EQ(f.rival_value, kApi / 3);
  // MT4G's closeness alone (1 - relative distance) would claim it.
  EXPECT_GT(f.closeness, 0.8);
}

// GPU-dd5b092d, one run of five: the step at 24.58 MB is nearer a third (20.97 MB) than a half
// (31.46 MB), and was read as 3 segments at 0.83.
TEST(SegmentCount, TheH200RunThatReadThreeSegmentsEstablishesNoCount) {
  const auto f = fit_segment_count(24.58 * kMb, {24.1 * kMb, 25.1 * kMb}, kApi, 16);
  EXPECT_EQ(f.count, 3);
  EXPECT_GT(f.closeness, 0.8);
  EXPECT_LT(f.confidence, 0.5);
  EXPECT_EQ(f.rival, 2);
}

// 0.5 is where the interval's end is three times nearer its fraction than the rival: a quarter of
// the gap between them.
TEST(SegmentCount, HalfSeparationIsAQuarterOfTheGap) {
  const double gap = kApi / 2 - kApi / 3;
  const auto f = fit_segment_count(kApi / 2, {kApi / 2 - gap / 4, kApi / 2}, kApi, 16);
  EXPECT_NEAR(f.separation, 0.5, 1e-12);
  EXPECT_EQ(f.rival, 3);
}

TEST(SegmentCount, AnIntervalReachingPastTheMidpointEstablishesNeither) {
  const auto f = fit_segment_count(kApi / 2, {0.4 * kApi, 0.55 * kApi}, kApi, 16);
  EXPECT_EQ(f.count, 2);
  EXPECT_DOUBLE_EQ(f.separation, 0);
  EXPECT_DOUBLE_EQ(f.confidence, 0);
  const auto both = fit_segment_count(kApi / 2, {kApi / 3, kApi / 2}, kApi, 16);
  EXPECT_DOUBLE_EQ(both.confidence, 0);
}

// Above the API size there is no larger fraction: only the distance counts.
TEST(SegmentCount, AStepPastTheApiSizeIsOneSegmentByItsDistance) {
  const auto f = fit_segment_count(1.1 * kApi, {1.05 * kApi, 1.15 * kApi}, kApi, 16);
  EXPECT_EQ(f.count, 1);
  EXPECT_DOUBLE_EQ(f.separation, 1);
  EXPECT_NEAR(f.confidence, 0.9, 1e-12);
}

TEST(SegmentCount, NoApiSizeGivesNoCount) {
  EXPECT_DOUBLE_EQ(fit_segment_count(1, at(1), 0, 16).confidence, 0);
}

}  // namespace
}  // namespace gputopo::analysis
