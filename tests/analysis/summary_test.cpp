#include "analysis/summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/distributions.hpp"

namespace gputopo::analysis {
namespace {

// Expected values from numpy / scipy.stats (percentile 'linear', std ddof=1, trim_mean 0.1).
TEST(Summary, MatchesNumpyOnSmallSamples) {
  const std::vector<double> a{4, 100, 1, 3, 2};
  const Summary s = summarize(a);
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.mean, 22);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_NEAR(s.p5, 1.2, 1e-12);
  EXPECT_NEAR(s.p95, 80.8, 1e-9);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 100);
  EXPECT_NEAR(s.stdev, 43.617656975128774, 1e-9);
  EXPECT_DOUBLE_EQ(s.mad, 1);
  EXPECT_DOUBLE_EQ(s.trimmed_mean, 22);

  const std::vector<double> b{1, 2, 3, 4, 5, 6, 7, 8, 9, 1000};
  const Summary t = summarize(b);
  EXPECT_DOUBLE_EQ(t.median, 5.5);
  EXPECT_NEAR(t.p5, 1.45, 1e-12);
  EXPECT_NEAR(t.p95, 554.05, 1e-9);
  EXPECT_NEAR(t.stdev, 314.6572209034248, 1e-9);
  EXPECT_DOUBLE_EQ(t.mad, 2.5);
  EXPECT_DOUBLE_EQ(t.trimmed_mean, 5.5);  // the outlier is trimmed away
}

TEST(Summary, EmptyAndSingle) {
  const Summary e = summarize({});
  EXPECT_EQ(e.n, 0u);
  EXPECT_TRUE(std::isnan(e.mean));
  const std::vector<double> one{7};
  const Summary s = summarize(one);
  EXPECT_EQ(s.median, 7);
  EXPECT_EQ(s.stdev, 0);
  EXPECT_EQ(s.p95, 7);
}

TEST(Summary, RobustScaleIgnoresOutliers) {
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) v.push_back(300 + (i % 21) - 10);
  const double clean = robust_sd(v);
  for (int i = 0; i < 30; ++i) v[static_cast<std::size_t>(i) * 33] = 5000;
  EXPECT_NEAR(robust_sd(v), clean, 0.1 * clean);
  EXPECT_NEAR(trimmed_mean(v, 0.1), 300, 1);
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 290);
}

TEST(Distributions, MatchScipy) {
  EXPECT_NEAR(chi2_sf(3.841458820694124, 1), 0.05, 1e-12);
  EXPECT_NEAR(chi2_sf(20, 3), 0.00016974243555282632, 1e-15);
  EXPECT_NEAR(chi2_sf(0.5, 7), 0.9994464813904249, 1e-12);
  EXPECT_NEAR(chi2_isf(1e-4, 5), 25.744831959055876, 1e-8);
  EXPECT_NEAR(chi2_isf(0.01 / 131, 1), 15.646942975236906, 1e-8);
  EXPECT_NEAR(normal_sf(1.959963984540054), 0.025, 1e-12);
  EXPECT_NEAR(normal_cdf(0), 0.5, 1e-15);
}

}  // namespace
}  // namespace gputopo::analysis

namespace gputopo::analysis {
namespace {

TEST(WeightedMedian, IsWhereTheCumulativeWeightPassesHalf) {
  EXPECT_EQ(weighted_median({{10, 1}, {20, 1}, {30, 5}}), 30);
  EXPECT_EQ(weighted_median({{30, 1}, {10, 1}, {20, 1}}), 20);
  EXPECT_EQ(weighted_median({{10, 1}, {20, 1}}), 15);  // exactly half: the midpoint
  EXPECT_EQ(weighted_median({}), 0);
}

}  // namespace
}  // namespace gputopo::analysis
