#include "analysis/inference.hpp"

#include <gtest/gtest.h>

#include <random>

#include "synthetic.hpp"

namespace gputopo::analysis {
namespace {

using synthetic::draw;
using synthetic::hit_miss;
using synthetic::Noise;
using synthetic::range;
using synthetic::sweep;

// Cold stride sweep: a load misses when it reaches a granule not fetched yet.
std::vector<SweepPoint> stride_sweep(std::uint64_t seed, const std::vector<double>& strides,
                                     double granularity, const Noise& noise = {}) {
  std::mt19937_64 rng(seed);
  return sweep(
      rng, strides, [&](double s) { return hit_miss(std::min(1.0, s / granularity)); }, 1024,
      noise);
}

TEST(FetchGranularity, FineStrides) {
  for (double g : {32.0, 64.0}) {
    const auto e = fetch_granularity(stride_sweep(1, range(4, 4, 48), g, {.outliers = 0.01}));
    ASSERT_TRUE(e.established) << e.reason;
    EXPECT_EQ(e.value, g);
    EXPECT_EQ(e.lo, g - 4);
    EXPECT_EQ(e.hi, g);
    EXPECT_GT(e.confidence, 0.9);
  }
}

TEST(FetchGranularity, PowerOfTwoStridesAndNoise) {
  const std::vector<double> strides{4, 8, 16, 32, 64, 128, 256};
  for (std::uint64_t seed = 2; seed < 7; ++seed) {
    const auto e =
        fetch_granularity(stride_sweep(seed, strides, 32, {.jitter = 0.05, .outliers = 0.03}));
    ASSERT_TRUE(e.established);
    EXPECT_EQ(e.value, 32);
    EXPECT_EQ(e.lo, 16);
    EXPECT_GT(e.confidence, 0.9);
  }
}

TEST(FetchGranularity, NoContrastIsNotEstablished) {
  std::mt19937_64 rng(3);
  const auto all_hits = sweep(
      rng, range(4, 4, 16), [](double) { return hit_miss(0); }, 512);
  const auto e = fetch_granularity(all_hits);
  EXPECT_FALSE(e.established);
  EXPECT_FALSE(e.reason.empty());
}

TEST(FetchGranularity, LargerThanEveryStrideIsFlagged) {
  const auto e = fetch_granularity(stride_sweep(4, range(4, 4, 8), 128));
  ASSERT_TRUE(e.established);
  EXPECT_EQ(e.value, 32);  // the largest stride tested
  EXPECT_LE(e.confidence, 0.5);
  EXPECT_FALSE(e.reason.empty());
}

// The array is 5 % over the cache: strides up to line * 1.05 still touch too many lines.
std::vector<SweepPoint> line_sweep(std::uint64_t seed, double line, double over) {
  std::mt19937_64 rng(seed);
  return sweep(rng, range(32, 32, 16),
               [&](double s) { return hit_miss(s < line * over ? 1.0 : 0.0); }, 1024,
               {.outliers = 0.02});
}

TEST(LineSize, FromMissesPastCapacity) {
  const double cache = 64 * 1024;
  for (double line : {64.0, 128.0, 256.0}) {
    const auto e = line_size(line_sweep(5, line, 1.05), 1.05 * cache, cache);
    ASSERT_TRUE(e.established) << line << ": " << e.reason;
    EXPECT_EQ(e.value, line);
    EXPECT_LT(e.lo, line);
    EXPECT_GE(e.hi, line);
    EXPECT_GT(e.confidence, 0.9);
  }
}

TEST(LineSize, ConflictMissesAtLargeStridesDoNotHideTheLine) {
  // Power-of-two strides far past the line use few sets: misses come back from 1 KiB on.
  std::mt19937_64 rng(8);
  const auto pts = sweep(rng, range(32, 32, 64),
                         [](double s) { return hit_miss(s < 128 * 1.25 || s >= 1024 ? 1.0 : 0.0); },
                         1024, {.outliers = 0.01});
  const auto e = line_size(pts, 1.25 * 65536, 65536);
  ASSERT_TRUE(e.established) << e.reason;
  EXPECT_EQ(e.value, 128);
}

// A modulo index whose set count shares a factor with a stride maps the array into a fraction of
// the sets, which thrash at that stride alone (a 532-set cache: strides of 152 and 184 B past a
// 64 B line). The line is still read where the misses fall for good.
TEST(LineSize, AliasingStridesPastTheLineDoNotMoveIt) {
  const double line = 64, cache = 102144, array = 1.5 * cache;
  std::mt19937_64 rng(21);
  const auto pts = sweep(
      rng, range(24, 16, 40),
      [&](double s) {
        const bool aliased = s == 152 || s == 184 || s == 264 || s == 296;
        return hit_miss(s < 1.5 * line || aliased ? 1.0 : 0.03);
      },
      1024);
  const auto e = line_size(pts, array, cache);
  ASSERT_TRUE(e.established) << e.reason;
  EXPECT_EQ(e.value, line);
  EXPECT_GT(e.confidence, 0.9);
}

// Strides below the line touch every line and miss stride / line of the time, then all loads miss
// until the array fits (stride >= 2.5 line). Rare loads held up 2000 to 20000 cycles, a few more at
// the first stride, raise its mean latency above that of the all-miss strides: the rise of the miss
// fraction there is no miss-to-hit change.
TEST(LineSize, OutliersDoNotTurnARiseOfMissesIntoTheStep) {
  const double line = 32, cache = 1024, array = 2.5 * cache;
  std::mt19937_64 rng(12);
  std::vector<SweepPoint> pts;
  for (double s = 24; s <= 424; s += 16) {
    const double miss = s < line ? s / line : (s < 2.5 * line ? 1.0 : 0.0);
    pts.push_back({s, draw(rng, 512, hit_miss(miss, 6, 64), {.outliers = s < line ? 0.03 : 0.01})});
  }
  const auto e = line_size(pts, array, cache);
  ASSERT_TRUE(e.established) << e.reason;
  EXPECT_EQ(e.value, line);
  EXPECT_LT(e.lo, line);
  EXPECT_GE(e.hi, line);
}

// Every load misses up to stride `last_missing`, a share `after` of them past it.
std::vector<SweepPoint> step_sweep(std::uint64_t seed, const std::vector<double>& strides,
                                   double last_missing, double after) {
  std::mt19937_64 rng(seed);
  return sweep(
      rng, strides, [&](double s) { return hit_miss(s <= last_missing ? 1.0 : after); }, 1024);
}

// Lines are powers of two: a change that brackets none (here (35.2, 41.6] B, set imbalance past a
// 32 B line on a modulo index of 11 sets) is not a line a dependent may stride by.
TEST(LineSize, AnIntervalWithoutAPowerOfTwoIsNotEstablished) {
  const double cache = 704;
  const auto e = line_size(step_sweep(31, range(24, 16, 17), 88, 0.05), 2.5 * cache, cache);
  EXPECT_GT(e.lo, 32);
  EXPECT_LT(e.hi, 64);
  EXPECT_LT(e.confidence, 0.5);
  EXPECT_EQ(e.reason, "no power of two in the interval");
}

// Strides too coarse to single out a power of two: (9.6, 35.2] holds 16 and 32, a coin flip that
// stays under the 0.5 at which a dependent would take it.
TEST(LineSize, SeveralPowersOfTwoAreACoinFlipAtBest) {
  const double cache = 1024;
  const auto e = line_size(step_sweep(41, range(24, 64, 8), 80, 0.02), 2.5 * cache, cache);
  EXPECT_LE(e.lo, 16);
  EXPECT_GE(e.hi, 32);
  EXPECT_LT(e.confidence, 0.5);
  EXPECT_EQ(e.reason, "several powers of two in the interval; strides too coarse");
}

TEST(LineSize, NoChangeOrBadSizesAreNotEstablished) {
  std::mt19937_64 rng(6);
  const auto flat = sweep(
      rng, range(32, 32, 16), [](double) { return hit_miss(1); }, 512);
  EXPECT_FALSE(line_size(flat, 70000, 65536).established);
  EXPECT_FALSE(line_size(line_sweep(7, 128, 1.05), 60000, 65536).established);
}

TEST(Disturbance, SameDistributionIsNotDisturbed) {
  int false_alarms = 0;
  for (std::uint64_t seed = 10; seed < 50; ++seed) {
    std::mt19937_64 rng(seed);
    const auto ref = draw(rng, 2048, hit_miss(0.05), {.outliers = 0.01});
    const auto timed = draw(rng, 2048, hit_miss(0.05), {.outliers = 0.01});
    false_alarms += disturbance_test(ref, timed).disturbed ? 1 : 0;
  }
  EXPECT_LE(false_alarms, 2);  // alpha = 0.01
}

// One family of 300 tests of the same distribution: at alpha per test about three reject by
// chance; Holm's adjusted p-values reject none, and still reject the true disturbances beside them.
TEST(Disturbance, AFamilyOfTestsRejectsNoneByChance) {
  std::vector<double> p;
  int by_chance = 0;
  for (std::uint64_t seed = 100; seed < 400; ++seed) {
    std::mt19937_64 rng(seed);
    const auto ref = draw(rng, 1024, hit_miss(0.02));
    const auto timed = draw(rng, 1024, hit_miss(seed % 50 == 0 ? 0.5 : 0.02));
    const auto r = disturbance_test(ref, timed);
    if (seed % 50 != 0 && r.disturbed) ++by_chance;
    p.push_back(r.p_value);
  }
  EXPECT_GE(by_chance, 1);  // the family needs the adjustment
  const auto adjusted = holm_adjusted(p);
  for (std::size_t i = 0; i < p.size(); ++i) {
    EXPECT_GE(adjusted[i], p[i]);
    EXPECT_EQ(adjusted[i] < 0.01, (100 + i) % 50 == 0) << i << " p " << p[i];
  }
  EXPECT_EQ(holm_adjusted(std::vector<double>{0.01, 0.04, 0.03}),
            (std::vector<double>{0.03, 0.06, 0.06}));
}

TEST(Disturbance, EvictionIsDisturbance) {
  std::mt19937_64 rng(11);
  const auto ref = draw(rng, 2048, hit_miss(0), {.outliers = 0.01});
  const auto timed = draw(rng, 2048, hit_miss(0.2), {.outliers = 0.01});
  const auto r = disturbance_test(ref, timed);
  EXPECT_TRUE(r.disturbed);
  EXPECT_LT(r.p_value, 1e-10);
  EXPECT_NEAR(r.effect, 0.2, 0.03);
  EXPECT_GT(r.disturbed_miss, r.reference_miss);
}

TEST(Disturbance, L2ToDramIsDisturbance) {
  std::mt19937_64 rng(12);
  const auto ref = draw(rng, 512, {{300, 1}}, {.jitter = 0.04});
  const auto timed = draw(rng, 512, {{300, 0.4}, {700, 0.6}}, {.jitter = 0.04});
  const auto r = disturbance_test(ref, timed);
  EXPECT_TRUE(r.disturbed);
  EXPECT_NEAR(r.effect, 0.6, 0.06);
}

TEST(Disturbance, JitterShiftInsideALevelIsNotDisturbance) {
  // One cycle slower hits: a test of the distributions would call this different (a K-S test of
  // 2,048 loads each does, at p < 1e-6), but no load left its level.
  std::mt19937_64 rng(13);
  const auto ref = draw(rng, 2048, {{35, 1}}, {.jitter = 0.02});
  const auto timed = draw(rng, 2048, {{36, 1}}, {.jitter = 0.02});
  const auto r = disturbance_test(ref, timed);
  EXPECT_FALSE(r.disturbed);
  EXPECT_EQ(r.effect, 0);
}

TEST(Disturbance, FewerMissesIsNotDisturbance) {
  std::mt19937_64 rng(14);
  const auto ref = draw(rng, 1024, hit_miss(0.5));
  const auto timed = draw(rng, 1024, hit_miss(0.1));
  const auto r = disturbance_test(ref, timed);
  EXPECT_FALSE(r.disturbed);
  EXPECT_LT(r.effect, 0);
  EXPECT_GT(r.p_value, 0.5);
}

TEST(NearestFraction, L2Segment) {
  const double mib = 1024.0 * 1024.0;
  const Fraction f = nearest_fraction(25 * mib, 50 * mib, 4);
  EXPECT_EQ(f.numerator, 1);
  EXPECT_EQ(f.denominator, 2);
  EXPECT_DOUBLE_EQ(f.value, 25 * mib);
  EXPECT_DOUBLE_EQ(f.relative_distance, 0);
  EXPECT_DOUBLE_EQ(f.confidence, 1);

  // 26.5 MiB of 50: still 1/2 (the neighbours are 1/3 and 2/3), with less confidence.
  const Fraction g = nearest_fraction(26.5 * mib, 50 * mib, 4);
  EXPECT_EQ(g.denominator, 2);
  EXPECT_NEAR(g.relative_distance, 0.06, 1e-12);
  EXPECT_NEAR(g.confidence, 1 - 1.5 / ((100.0 / 3 - 25) / 2), 1e-12);
  EXPECT_GT(g.confidence, 0.5);
}

TEST(NearestFraction, MeasurementUncertainty) {
  const Fraction sharp = nearest_fraction(30, 60, 4, 0.5);
  EXPECT_EQ(sharp.denominator, 2);
  EXPECT_GT(sharp.confidence, 0.999);
  const Fraction vague = nearest_fraction(30, 60, 4, 20);
  EXPECT_EQ(vague.denominator, 2);
  EXPECT_LT(vague.confidence, 0.5);
  // Midway between 1/2 and 2/3 of 60: no fraction is preferred.
  const Fraction mid = nearest_fraction(35, 60, 3);
  EXPECT_NEAR(mid.confidence, 0, 1e-12);
}

TEST(NearestFraction, EdgesAndBadInput) {
  const Fraction whole = nearest_fraction(62, 60, 4);
  EXPECT_EQ(whole.numerator, 1);
  EXPECT_EQ(whole.denominator, 1);
  EXPECT_EQ(nearest_fraction(-1, 60, 4).confidence, 0);
  EXPECT_EQ(nearest_fraction(30, 0, 4).confidence, 0);
  EXPECT_EQ(nearest_fraction(30, 60, 0).confidence, 0);
}

}  // namespace
}  // namespace gputopo::analysis
