#include "analysis/clean_level.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace gputopo::analysis {
namespace {

// Segments of 16 loads at 30 cycles, jittered by 6 cycles a load, one load in a hundred held up
// by 200-6000 cycles: the segment means that hold one are the outliers.
std::vector<double> segments(int n, double rate, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> jitter(0, 6);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> out;
  for (int s = 0; s < n; ++s) {
    double total = 0;
    for (int i = 0; i < 16; ++i) {
      total += 30 + jitter(rng);
      if (u(rng) < rate) total += 200 + 5800 * u(rng);
    }
    out.push_back(total / 16);
  }
  return out;
}

TEST(CleanLevel, TheMeanOfTheCleanSegmentsIsTheLoadsLatency) {
  const auto s = segments(256, 0.01, 1);
  const auto c = clean_level(s);
  EXPECT_NEAR(c.level, 30, 0.3);
  EXPECT_GT(c.outlier_share, 0.05);
  EXPECT_LT(c.outlier_share, 0.3);
  EXPECT_NEAR(c.sd, 6 / std::sqrt(16.0), 0.3);
  EXPECT_EQ(outlier_confidence(c.outlier_share), 1.0);
}

TEST(CleanLevel, ANoiseFreeSampleKeepsEveryValue) {
  const std::vector<double> s(20, 23.0);
  const auto c = clean_level(s);
  EXPECT_DOUBLE_EQ(c.level, 23.0);
  EXPECT_EQ(c.clean, 20u);
  EXPECT_DOUBLE_EQ(c.outlier_share, 0.0);
}

TEST(CleanLevel, ManyOutliersLowerTheConfidence) {
  // Three slow loads in a hundred: two segments in five hold one. The level stands, the
  // confidence falls below even odds.
  const auto c = clean_level(segments(512, 0.03, 2));
  EXPECT_NEAR(c.level, 30, 0.3);
  EXPECT_GT(c.outlier_share, 0.3);
  EXPECT_LT(outlier_confidence(c.outlier_share), 0.6);
  EXPECT_EQ(outlier_confidence(0.25), 1.0);
  EXPECT_NEAR(outlier_confidence(0.375), 0.5, 1e-12);
  EXPECT_EQ(outlier_confidence(0.5), 0.0);
}

TEST(CleanLevel, AnEmptySampleHasNoLevel) {
  EXPECT_TRUE(std::isnan(clean_level(std::vector<double>{}).level));
}

}  // namespace
}  // namespace gputopo::analysis
