#include "analysis/changepoint.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "synthetic.hpp"

namespace gputopo::analysis {
namespace {

using synthetic::hit_miss;
using synthetic::Mix;
using synthetic::Noise;
using synthetic::range;
using synthetic::sweep;

// L1-like size sweep in KiB, 1 KiB steps; misses from `capacity` on.
std::vector<SweepPoint> step_sweep(std::uint64_t seed, double capacity, double miss_after,
                                   const Noise& noise, std::size_t samples = 2048) {
  std::mt19937_64 rng(seed);
  return sweep(
      rng, range(200, 1, 100), [&](double x) { return hit_miss(x >= capacity ? miss_after : 0.0); },
      samples, noise);
}

// Hopper-like L1 capacity: misses rise from 243 KiB, fall back to zero at 253-254 KiB, then rise
// jaggedly to all misses at 287 KiB.
std::vector<Mix> hopper_l1(double x) {
  double m = 0;
  if (x >= 243 && x < 253) {
    m = 0.03 * (x - 242);
  } else if (x >= 255 && x < 287) {
    m = std::min(1.0, 0.2 + 0.025 * (x - 255) + (static_cast<int>(x) % 3 == 0 ? 0.1 : 0.0));
  } else if (x >= 287) {
    m = 1;
  }
  return hit_miss(m);
}

// H100-like single-SM L2 sweep in MiB: near to 26.5, far from 27, DRAM from 52.
std::vector<Mix> l2_levels(double x) { return {{x < 27 ? 300.0 : x < 52 ? 550.0 : 700.0, 1.0}}; }

TEST(ChangePoint, CleanStep) {
  const auto pts = step_sweep(1, 250, 1.0, {.jitter = 0});
  const auto s = segment(pts);
  ASSERT_EQ(s.changes.size(), 1u);
  const ChangePoint& c = s.changes[0];
  EXPECT_EQ(c.index, 50u);
  EXPECT_EQ(c.x, 250);
  EXPECT_EQ(c.x_lo, 249);
  EXPECT_EQ(c.x_hi, 250);
  EXPECT_LT(c.p_value, 1e-12);
  EXPECT_GT(c.confidence, 0.99);
  EXPECT_GT(c.location_certainty, 0.99);
  EXPECT_EQ(c.level_before, 35);
  EXPECT_EQ(c.level_after, 300);
  ASSERT_EQ(s.plateaus.size(), 2u);
  EXPECT_EQ(s.plateaus[0].end, 50u);
  EXPECT_EQ(s.plateaus[1].begin, 50u);
}

TEST(ChangePoint, StepInNoiseWithOutliers) {
  for (double outliers : {0.01, 0.03, 0.05}) {
    for (std::uint64_t seed = 10; seed < 15; ++seed) {
      const auto pts = step_sweep(seed, 263, 1.0, {.jitter = 0.05, .outliers = outliers});
      const auto s = segment(pts);
      ASSERT_EQ(s.changes.size(), 1u) << "outliers " << outliers << " seed " << seed;
      EXPECT_EQ(s.changes[0].x, 263);
      EXPECT_NEAR(s.changes[0].level_before, 35, 1);
      EXPECT_NEAR(s.changes[0].level_after, 300, 6);
      EXPECT_GT(s.changes[0].confidence, 0.95);
    }
  }
}

TEST(ChangePoint, SmallMissFractionStepIsFound) {
  // 2 % of loads start to miss, under 3 % outliers: invisible to a mean, clear in level fractions.
  for (std::uint64_t seed = 20; seed < 25; ++seed) {
    const auto pts = step_sweep(seed, 240, 0.02, {.jitter = 0.03, .outliers = 0.03});
    const auto c = most_likely_change(pts);
    ASSERT_TRUE(c.has_value()) << "seed " << seed;
    EXPECT_NEAR(c->x, 240, 1);
    EXPECT_LE(c->x_lo, 240);
    EXPECT_GE(c->x_hi, 239);
  }
}

TEST(ChangePoint, NonMonotonicTransitionIsOneChangeWithItsWidth) {
  for (std::uint64_t seed = 30; seed < 35; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pts = sweep(rng, range(200, 1, 100), hopper_l1, 2048, {.outliers = 0.01});
    const auto s = segment(pts);
    ASSERT_EQ(s.changes.size(), 1u) << "seed " << seed;
    const ChangePoint& c = s.changes[0];
    EXPECT_EQ(c.x, 243);  // first misses
    EXPECT_EQ(c.x_lo, 242);
    EXPECT_GE(c.x_hi, 285);  // covers the dip back to zero and the jagged rise
    EXPECT_LE(c.x_hi, 288);
    EXPECT_NEAR(c.level_before, 35, 1);
    EXPECT_NEAR(c.level_after, 300, 6);
    EXPECT_GT(c.confidence, 0.9);
    EXPECT_LT(c.location_certainty, 0.5);  // where in the transition is genuinely uncertain
    EXPECT_TRUE(s.excursions.empty());
  }
}

TEST(ChangePoint, ThreeLevels) {
  for (std::uint64_t seed = 40; seed < 45; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pts =
        sweep(rng, range(16, 0.5, 132), l2_levels, 2048, {.jitter = 0.04, .outliers = 0.01});
    const auto s = segment(pts);
    ASSERT_EQ(s.changes.size(), 2u) << "seed " << seed;
    EXPECT_EQ(s.changes[0].x, 27);
    EXPECT_EQ(s.changes[1].x, 52);
    EXPECT_NEAR(s.changes[0].level_before, 300, 5);
    EXPECT_NEAR(s.changes[0].level_after, 550, 8);
    EXPECT_NEAR(s.changes[1].level_after, 700, 10);
    ASSERT_EQ(s.plateaus.size(), 3u);
    EXPECT_NEAR(s.plateaus[1].level, 550, 8);
  }
}

TEST(ChangePoint, NoChangeMeansNoChange) {
  int false_alarms = 0;
  for (std::uint64_t seed = 100; seed < 140; ++seed) {
    std::mt19937_64 rng(seed);
    const double miss = static_cast<double>(seed % 3) * 0.2;  // 0, 20 % or 40 % misses everywhere
    const auto pts = sweep(rng, range(200, 1, 100), [&](double) { return hit_miss(miss); }, 1024,
                           {.jitter = 0.04, .outliers = static_cast<double>(seed % 2) * 0.03});
    const auto s = segment(pts);
    false_alarms += s.changes.empty() ? 0 : 1;
    EXPECT_FALSE(most_likely_change(pts).has_value() && s.changes.empty());
    ASSERT_EQ(s.plateaus.size(), s.changes.size() + 1);
  }
  EXPECT_LE(false_alarms, 1);  // alpha = 0.01 per sweep
}

TEST(ChangePoint, SingleLevelSweepHasNoChange) {
  std::mt19937_64 rng(7);
  const auto pts = sweep(
      rng, range(1, 1, 50), [](double) { return hit_miss(0); }, 512);
  EXPECT_FALSE(most_likely_change(pts).has_value());
  const auto s = segment(pts);
  ASSERT_EQ(s.plateaus.size(), 1u);
  EXPECT_NEAR(s.plateaus[0].level, 35, 1);
}

TEST(ChangePoint, IsolatedBadPointIsAnExcursionNotAChange) {
  std::mt19937_64 rng(8);
  const auto pts = sweep(
      rng, range(200, 1, 100), [](double x) { return hit_miss(x == 230 ? 0.5 : 0.0); }, 2048);
  const auto s = segment(pts);
  EXPECT_TRUE(s.changes.empty());
  ASSERT_EQ(s.excursions.size(), 1u);
  EXPECT_EQ(s.excursions[0].first, 30u);
  EXPECT_EQ(s.excursions[0].second, 30u);
}

TEST(ChangePoint, MissLevelThatDependsOnTheSmIsStillOneLevel) {
  // One size per SM: misses go to L2 at the SM's own latency (pairs of SMs alike, 286..321).
  for (std::uint64_t seed = 50; seed < 55; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<SweepPoint> pts;
    for (std::size_t i = 0; i < 132; ++i) {
      const double x = 128 + static_cast<double>(i);
      const double l2 = 286 + 35.0 * static_cast<double>((i / 2) % 9) / 8;
      pts.push_back({x, synthetic::draw(rng, 1024, hit_miss(x >= 242 ? 1.0 : 0.0, 35, l2),
                                        {.jitter = 0.004, .outliers = 0.005})});
    }
    const auto s = segment(pts);
    ASSERT_EQ(s.changes.size(), 1u) << "seed " << seed;
    EXPECT_EQ(s.changes[0].x, 242);
  }
}

TEST(ChangePoint, LongStayAtAnotherLevelIsTwoChanges) {
  std::mt19937_64 rng(12);
  const auto pts =
      sweep(rng, range(0, 1, 100), [](double x) { return hit_miss(x >= 30 && x < 70 ? 1.0 : 0.0); },
            1024, {.outliers = 0.01});
  const auto s = segment(pts);
  ASSERT_EQ(s.changes.size(), 2u);
  EXPECT_EQ(s.changes[0].x, 30);
  EXPECT_EQ(s.changes[1].x, 70);
  EXPECT_TRUE(s.excursions.empty());
}

TEST(ChangePoint, LevelOnsetsUnderOverlappingRamps) {
  // Far L2 loads ramp up from 26 MiB; DRAM loads appear at 52 MiB while far is still ramping.
  for (std::uint64_t seed = 60; seed < 63; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pts =
        sweep(rng, range(16, 1, 80),
              [](double x) {
                const double far = std::clamp((x - 25) / 40, 0.0, 0.6) * (1 + 0.1 * std::sin(x));
                const double dram = std::clamp((x - 51) / 60, 0.0, 0.3);
                return std::vector<Mix>{{300, 1 - far - dram}, {550, far}, {700, dram}};
              },
              1024, {.jitter = 0.04, .outliers = 0.005});
    const auto r = reduce(pts, Reduction::LevelFractions);
    const auto onsets = level_onsets(r);
    ASSERT_GE(onsets.size(), 2u) << "seed " << seed;
    ASSERT_FALSE(onsets[0].rises.empty());
    ASSERT_FALSE(onsets[1].rises.empty());
    EXPECT_NEAR(onsets[0].latency, 550, 15);
    EXPECT_NEAR(onsets[0].rises.front().x, 26, 1.5);
    EXPECT_NEAR(onsets[1].latency, 700, 20);
    EXPECT_NEAR(onsets[1].rises.front().x, 52, 1.5);
    EXPECT_LT(onsets[1].rises.front().score_before, 0.01);
    for (const auto& rise : onsets[1].rises) EXPECT_GT(rise.score_after, rise.score_before);
  }
}

TEST(ChangePoint, NoOnsetWithoutARise) {
  std::mt19937_64 rng(64);
  const auto pts = sweep(
      rng, range(1, 1, 40), [](double) { return hit_miss(0.3); }, 1024);
  const auto onsets = level_onsets(reduce(pts, Reduction::LevelFractions));
  ASSERT_EQ(onsets.size(), 1u);
  EXPECT_TRUE(onsets[0].rises.empty());
}

TEST(ChangePoint, ShuffledSamplesGiveTheSameAnswer) {
  std::mt19937_64 rng(9);
  auto pts = sweep(rng, range(200, 1, 100), hopper_l1, 1024, {.outliers = 0.02});
  const auto before = segment(pts);
  for (auto& p : pts) std::shuffle(p.samples.begin(), p.samples.end(), rng);
  const auto after = segment(pts);
  ASSERT_EQ(before.changes.size(), after.changes.size());
  for (std::size_t i = 0; i < before.changes.size(); ++i) {
    EXPECT_EQ(before.changes[i].index, after.changes[i].index);
    EXPECT_EQ(before.changes[i].index_hi, after.changes[i].index_hi);
    EXPECT_DOUBLE_EQ(before.changes[i].confidence, after.changes[i].confidence);
  }
}

TEST(ChangePoint, ScalingLatenciesKeepsTheChangePoints) {
  std::mt19937_64 rng(10);
  const auto pts = sweep(rng, range(16, 0.5, 132), l2_levels, 1024, {.outliers = 0.01});
  const auto base = segment(pts);
  ASSERT_EQ(base.changes.size(), 2u);
  for (double factor : {2.0, 0.37, 1.7}) {
    auto scaled = pts;
    for (auto& p : scaled) {
      for (double& v : p.samples) v *= factor;
    }
    for (Reduction red : {Reduction::LevelFractions, Reduction::TrimmedMean}) {
      const auto s = segment(scaled, {.reduction = red});
      ASSERT_EQ(s.changes.size(), base.changes.size()) << factor;
      for (std::size_t i = 0; i < s.changes.size(); ++i) {
        EXPECT_EQ(s.changes[i].index, base.changes[i].index) << factor;
        EXPECT_NEAR(s.changes[i].level_after, factor * base.changes[i].level_after,
                    1e-9 * factor * base.changes[i].level_after);
      }
    }
  }
}

TEST(ChangePoint, FewSamplesAndCoarseSweep) {
  std::mt19937_64 rng(11);
  const std::vector<double> xs{4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
  const auto pts = sweep(rng, xs, [](double x) { return hit_miss(x > 100 ? 1.0 : 0.0); }, 256,
                         {.outliers = 0.02});
  const auto c = most_likely_change(pts);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->x, 128);
  EXPECT_EQ(c->x_lo, 64);  // the capacity lies between the last hit and the first miss size
  EXPECT_EQ(c->x_hi, 128);
}

TEST(ChangePoint, DegenerateSweeps) {
  EXPECT_TRUE(segment(std::vector<SweepPoint>{}).plateaus.empty());
  EXPECT_FALSE(most_likely_change(std::vector<SweepPoint>{}).has_value());
  const std::vector<SweepPoint> one{{1, {35, 35, 36}}};
  EXPECT_EQ(segment(one).plateaus.size(), 1u);
  const std::vector<SweepPoint> empty_samples{{1, {}}, {2, {}}, {3, {}}};
  EXPECT_TRUE(segment(empty_samples).changes.empty());
}

// Why level fractions: over seeds, count how often each reduction finds exactly the true change.
int exact_hits(Reduction reduction, double miss_after, const Noise& noise) {
  int hits = 0;
  for (std::uint64_t seed = 200; seed < 210; ++seed) {
    const auto s = segment(step_sweep(seed, 250, miss_after, noise), {.reduction = reduction});
    hits += s.changes.size() == 1 && s.changes[0].x == 250 ? 1 : 0;
  }
  return hits;
}

TEST(ChangePoint, LevelFractionsBeatOtherReductions) {
  const Noise outliers{.jitter = 0.03, .outliers = 0.03};
  EXPECT_EQ(exact_hits(Reduction::LevelFractions, 0.05, outliers), 10);
  // MT4G's geometric mapping is dominated by the outliers' squares.
  EXPECT_LE(exact_hits(Reduction::Geometric, 0.05, outliers), 3);
  // A full step in a noisy miss plateau: the trimmed mean's noise differs between plateaus.
  const Noise jitter{.jitter = 0.05, .outliers = 0.03};
  EXPECT_EQ(exact_hits(Reduction::LevelFractions, 1.0, jitter), 10);
  EXPECT_LE(exact_hits(Reduction::TrimmedMean, 1.0, jitter), 5);
}

}  // namespace
}  // namespace gputopo::analysis
