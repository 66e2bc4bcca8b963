#include "analysis/rise.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace gputopo::analysis {
namespace {

TEST(Isotonic, PoolsViolatorsByWeight) {
  const std::vector<double> y{0, 2, 1, 3};
  const std::vector<double> w{1, 1, 3, 1};
  const auto f = isotonic_fit(y, w);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_DOUBLE_EQ(f[0], 0);
  EXPECT_DOUBLE_EQ(f[1], 1.25);  // (2 + 3 * 1) / 4
  EXPECT_DOUBLE_EQ(f[2], 1.25);
  EXPECT_DOUBLE_EQ(f[3], 3);
  EXPECT_TRUE(isotonic_fit({}, {}).empty());
  const std::vector<double> down{3, 2, 1};
  const auto flat = isotonic_fit(down, std::vector<double>{1, 1, 1});
  for (double v : flat) EXPECT_DOUBLE_EQ(v, 2);
}

// Miss fraction of a chase over `size` bytes at the given curve, drawn binomially.
std::vector<double> draw(std::mt19937_64& rng, const std::vector<double>& xs, double loads,
                         double (*curve)(double)) {
  std::vector<double> out;
  for (double x : xs) {
    std::binomial_distribution<int> b(static_cast<int>(loads), curve(x));
    out.push_back(b(rng) / loads);
  }
  return out;
}

std::vector<double> grid(double first, double step, int count) {
  std::vector<double> xs;
  for (int i = 0; i < count; ++i) xs.push_back(first + step * i);
  return xs;
}

// LRU, one set overflowing per line past 64 KiB: a clean step at line steps.
double lru_step(double x) { return x <= 65536 ? 0.0 : 1.0; }
// Set-associative LRU swept finer than a set's worth: a linear ramp from 64 KiB to 80 KiB.
double lru_ramp(double x) { return std::clamp((x - 65536) / 16384, 0.0, 1.0); }
// Random replacement: steepest right past 64 KiB, then flattening.
double random_rise(double x) { return x <= 65536 ? 0.0 : 1 - std::exp(-(x - 65536) / 8192); }
// Hopper-like: a few % of misses from 52 KiB, a steep rise from 60 to 64 KiB, then slower.
double hopper_like(double x) {
  if (x < 53248) return 0.0;
  if (x < 61440) return 0.06 * (x - 53248) / 8192;
  if (x < 65536) return 0.06 + 0.2 * (x - 61440) / 4096;
  return std::min(1.0, 0.26 + 0.5 * (x - 65536) / 32768);
}

TEST(SteepestRise, CapacityForEveryShape) {
  struct Case {
    const char* name;
    double (*curve)(double);
    double expect;
    double tolerance;
  };
  for (const Case& c :
       {Case{"step", lru_step, 65536, 512}, Case{"ramp", lru_ramp, 65536, 1024},
        Case{"random", random_rise, 65536, 1536}, Case{"hopper", hopper_like, 61440, 2048}}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      std::mt19937_64 rng(seed);
      const auto xs = grid(32768, 1024, 64);
      const auto f = draw(rng, xs, 2048, c.curve);
      const std::vector<double> loads(xs.size(), 2048);
      const auto r = steepest_rise(xs, f, loads);
      ASSERT_TRUE(r.found) << c.name;
      EXPECT_NEAR(r.onset, c.expect, c.tolerance) << c.name << " seed " << seed;
      EXPECT_LT(r.p_value, 1e-6) << c.name;
      EXPECT_LE(r.first_rise, r.end) << c.name;
      EXPECT_GT(r.sharpness, 0) << c.name;
    }
  }
}

// Random replacement with one load per line, as a zoomed round sees it: the misses rise linearly
// from the capacity, with jumps a few lines wide on the way. Piece by piece (no scale) the jump has
// the sharpest increase of slope: 70400 B on these five seeds.
double random_line_zoom(double x) {
  if (x <= 65536) return 0.0;
  return 0.008 * (x - 65536) / 1024 + (x > 65536 + 4864 ? 0.012 : 0.0);
}
// Hopper as a zoomed round sees it: early misses at 5 %, a ramp to 8 %, a pause, then the steep
// rise.
double hopper_zoom(double x) {
  if (x < 60000) return 0.05;
  if (x < 63500) return 0.05 + 0.03 * (x - 60000) / 3500;
  if (x < 64700) return 0.08;
  return 0.08 + 0.024 * (x - 64700) / 1024;
}

TEST(SteepestRise, SlopesOverAScaleIgnoreRisesShorterThanIt) {
  struct Case {
    const char* name;
    double (*curve)(double);
    double first, step, scale, expect;
  };
  for (const Case& c : {Case{"random line", random_line_zoom, 65536 - 12288, 256, 4096, 65536},
                        Case{"hopper", hopper_zoom, 54000, 160, 3500, 64700}}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      std::mt19937_64 rng(seed);
      const auto xs = grid(c.first, c.step, static_cast<int>(6 * c.scale / c.step) + 1);
      const auto f = draw(rng, xs, 6000, c.curve);
      const std::vector<double> loads(xs.size(), 6000);
      const auto r = steepest_rise(xs, f, loads, c.scale);
      ASSERT_TRUE(r.found) << c.name;
      EXPECT_NEAR(r.onset, c.expect, 3 * c.step) << c.name << " seed " << seed;
      EXPECT_NEAR(xs[r.end], r.onset + c.scale, 2 * c.step) << c.name;
      EXPECT_LT(r.p_value, 1e-6) << c.name;
    }
  }
}

TEST(SteepestRise, CleanStepIsSharp) {
  const auto xs = grid(1024, 32, 64);
  std::vector<double> f;
  for (double x : xs) f.push_back(x <= 2048 ? 0.0 : 1.0);
  const auto r = steepest_rise(xs, f, std::vector<double>(xs.size(), 512));
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.onset, 2048);
  EXPECT_EQ(xs[r.end], 2080);
  EXPECT_EQ(xs[r.first_rise], 2080);
  EXPECT_GT(r.sharpness, 0.95);
}

TEST(SteepestRise, NoRiseIsNotFound) {
  const auto xs = grid(1024, 32, 16);
  EXPECT_FALSE(steepest_rise(xs, std::vector<double>(16, 0.0), std::vector<double>(16, 100)).found);
  EXPECT_FALSE(
      steepest_rise(std::vector<double>{1, 2}, std::vector<double>{0, 1}, std::vector<double>{1, 1})
          .found);
}

}  // namespace
}  // namespace gputopo::analysis
