#include "analysis/latency_classes.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

// Lines classed by their latency profile over SMs, on synthetic slices with noise.
namespace gputopo::analysis {
namespace {

using Samples = std::vector<std::vector<std::vector<double>>>;

// Line l lies in slice l % slices; SM s reaches slice k at 250 + step * |s - k * sms / slices|,
// each sample with Gaussian noise and one sample in `outlier_every` slowed by 500 cycles.
Samples sliced(int lines, int slices, int sms, double step, double noise, int outlier_every = 0) {
  std::mt19937 rng(11);
  std::normal_distribution<double> jitter(0, noise);
  Samples s(lines, std::vector<std::vector<double>>(sms));
  int drawn = 0;
  for (int l = 0; l < lines; ++l)
    for (int m = 0; m < sms; ++m)
      for (int r = 0; r < 4; ++r) {
        const double at = static_cast<double>(l % slices) * sms / slices;
        double v = 250 + step * std::abs(m - at) + jitter(rng);
        if (outlier_every > 0 && ++drawn % outlier_every == 0) v += 500;
        s[l][m].push_back(std::round(v));
      }
  return s;
}

TEST(LatencyClasses, FindsTheSlicesAndTheirLatencyFromEverySm) {
  const auto c = latency_classes(sliced(64, 8, 16, 1.5, 2, 97));
  ASSERT_EQ(c.count, 8);
  for (int l = 0; l < 64; ++l) EXPECT_EQ(c.label[l], l % 8) << l;
  EXPECT_GT(c.confidence, 0.9);
  EXPECT_NEAR(c.sample_sd[0], 2, 0.5);
  // SM 0 reaches slice 0 at 250 and slice 4 (at SM 8) at 262.
  EXPECT_NEAR(c.mean[0][0], 250, 1);
  EXPECT_NEAR(c.mean[0][4], 262, 1);
  EXPECT_LT(c.half[0][0], 1.5);
}

TEST(LatencyClasses, NoiseAloneIsOneClass) {
  const auto c = latency_classes(sliced(64, 1, 16, 1.5, 3, 97));
  EXPECT_EQ(c.count, 1);
  EXPECT_EQ(c.weakest_split, 0);
}

TEST(LatencyClasses, SlicesCloserThanTheNoiseAllowsMerge) {
  // 0.05 cycles a SM of distance against noise of 4: no two slices differ significantly.
  const auto c = latency_classes(sliced(32, 4, 8, 0.05, 4));
  EXPECT_EQ(c.count, 1);
}

}  // namespace
}  // namespace gputopo::analysis
