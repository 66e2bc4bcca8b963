#include "analysis/spread.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace gputopo::analysis {
namespace {

struct Halves {
  std::vector<double> first;
  std::vector<double> second;
  std::vector<double> se;
};

// Two independent half-means of each of `truth`, each with standard error `se`.
Halves observed(const std::vector<double>& truth, double se, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, se);
  Halves h;
  for (double t : truth) {
    h.first.push_back(t + noise(rng));
    h.second.push_back(t + noise(rng));
    h.se.push_back(se);
  }
  return h;
}

double mean_error(const std::vector<double>& truth, double se, double true_spread) {
  double sum = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const auto h = observed(truth, se, seed);
    sum += split_half_spread(h.first, h.second, h.se).value - true_spread;
  }
  return sum / 24;
}

TEST(SplitHalfSpread, NoiseAloneGivesASpreadNearZeroThatDoesNotGrowWithTheNoise) {
  const std::vector<double> truth(132, 280.0);
  for (const double se : {0.5, 2.0, 8.0}) {
    const auto h = observed(truth, se, 7);
    const auto s = split_half_spread(h.first, h.second, h.se);
    EXPECT_GT(s.raw, 3 * se);  // the plain range grows with the noise
    EXPECT_LT(std::abs(s.value), 2.5 * se);
    EXPECT_LE(s.lo, 0.0);
    EXPECT_GE(s.hi, 0.0);
    EXPECT_LT(std::abs(mean_error(truth, se, 0.0)), 0.5 * se);  // no bias
  }
}

TEST(SplitHalfSpread, ATrueSpreadIsKeptWithoutTheNoiseOfTheExtremes) {
  std::vector<double> truth;
  for (int i = 0; i < 132; ++i) truth.push_back(280.0 + 35.0 * (i % 11) / 10.0);
  const auto h = observed(truth, 0.7, 3);
  const auto s = split_half_spread(h.first, h.second, h.se);
  EXPECT_NEAR(s.value, 35.0, 2.0);
  EXPECT_LE(s.lo, 35.0 + 0.5);
  EXPECT_GE(s.hi, 35.0 - 0.5);
  EXPECT_NEAR(truth[s.argmax] - truth[s.argmin], 35.0, 7.0);
  EXPECT_LT(std::abs(mean_error(truth, 0.7, 35.0)), 0.5);
}

TEST(SplitHalfSpread, IsUnbiasedWhereThePlainRangeIsTooHighEveryTime) {
  std::vector<double> truth;
  for (int i = 0; i < 132; ++i) truth.push_back(280.0 + 10.0 * (i % 2));
  int raw_high = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const auto h = observed(truth, 1.5, seed);
    raw_high += split_half_spread(h.first, h.second, h.se).raw > 10.0 ? 1 : 0;
  }
  EXPECT_EQ(raw_high, 24);
  EXPECT_LT(std::abs(mean_error(truth, 1.5, 10.0)), 0.6);
}

TEST(SplitHalfSpread, ADisturbedHalfIsNotPickedAsAnExtreme) {
  std::vector<double> truth;
  for (int i = 0; i < 80; ++i) truth.push_back(210.0 + (i % 11));
  auto h = observed(truth, 0.15, 5);
  h.first[7] += 12;  // a slow interval in one half of a middle value
  const auto s = split_half_spread(h.first, h.second, h.se);
  EXPECT_NEAR(s.value, 10.0, 0.5);
}

TEST(SplitHalfSpread, TooFewValuesGiveZero) {
  const std::vector<double> one{280.0};
  EXPECT_EQ(split_half_spread(one, one, one).value, 0.0);
}

}  // namespace
}  // namespace gputopo::analysis
