#include "analysis/cluster.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "synthetic.hpp"

namespace gputopo::analysis {
namespace {

using synthetic::draw;
using synthetic::Mix;
using synthetic::Noise;

TEST(Cluster, EmptyAndUnusableInput) {
  EXPECT_EQ(cluster_levels(std::span<const double>{}).k(), 0u);
  const std::vector<double> bad{0, -3, std::nan("")};
  EXPECT_EQ(cluster_levels(bad).k(), 0u);
}

TEST(Cluster, OneLevelStaysOne) {
  std::mt19937_64 rng(1);
  for (double jitter : {0.0, 0.01, 0.05}) {
    const auto s = draw(rng, 4096, {{300, 1}}, {.jitter = jitter});
    const auto c = cluster_levels(s);
    ASSERT_EQ(c.k(), 1u) << "jitter " << jitter;
    EXPECT_NEAR(c.levels[0].center, 300, 3);
    EXPECT_DOUBLE_EQ(c.levels[0].weight, 1.0);
  }
}

TEST(Cluster, SmallIntegerLevelIsNotSplitIntoCycles) {
  std::mt19937_64 rng(2);
  const auto s = draw(rng, 8192, {{35, 1}}, {.jitter = 0.03});  // 34..36 cycles, discrete
  EXPECT_EQ(cluster_levels(s).k(), 1u);
}

TEST(Cluster, HitAndMissLevels) {
  std::mt19937_64 rng(3);
  const auto s = draw(rng, 2048, {{35, 0.7}, {300, 0.3}});
  const auto c = cluster_levels(s);
  ASSERT_EQ(c.k(), 2u);
  EXPECT_NEAR(c.levels[0].center, 35, 1);
  EXPECT_NEAR(c.levels[1].center, 300, 5);
  EXPECT_NEAR(c.levels[1].weight, 0.3, 0.03);
  ASSERT_EQ(c.boundaries.size(), 1u);
  EXPECT_GT(c.boundaries[0], c.levels[0].hi);
  EXPECT_LT(c.boundaries[0], c.levels[1].lo);
  ASSERT_EQ(c.labels.size(), s.size());
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(c.labels[i], s[i] > 100 ? 1u : 0u);
  EXPECT_NEAR(miss_fraction(s, c), 0.3, 0.03);
}

TEST(Cluster, NearFarDramLevelsOfL2) {
  std::mt19937_64 rng(4);
  const auto s = draw(rng, 6000, {{300, 0.4}, {550, 0.35}, {700, 0.25}});
  const auto c = cluster_levels(s);
  ASSERT_EQ(c.k(), 3u);
  EXPECT_NEAR(c.levels[0].center, 300, 6);
  EXPECT_NEAR(c.levels[1].center, 550, 10);
  EXPECT_NEAR(c.levels[2].center, 700, 12);
}

TEST(Cluster, RareOutliersFormTheirOwnLevelAndDoNotMoveOthers) {
  std::mt19937_64 rng(5);
  const auto s = draw(rng, 4096, {{35, 0.5}, {300, 0.5}}, {.outliers = 0.03});
  const auto c = cluster_levels(s);
  ASSERT_GE(c.k(), 3u);
  EXPECT_NEAR(c.levels[0].center, 35, 1);
  EXPECT_NEAR(c.levels[1].center, 300, 6);
  EXPECT_GT(c.levels[2].center, 1500);
  double outlier_weight = 0;
  for (std::size_t i = 2; i < c.k(); ++i) outlier_weight += c.levels[i].weight;
  EXPECT_NEAR(outlier_weight, 0.03, 0.01);
}

TEST(Cluster, OneLevelReadFromManySmsStaysOneLevel) {
  // L2 hits from different SMs: 286..321 cycles in distinct, sharp sub-levels.
  std::mt19937_64 rng(9);
  std::vector<double> s;
  for (int sm = 0; sm < 66; ++sm) {
    const double latency = 286 + 35.0 * (sm % 8) / 7;
    const auto part = draw(rng, 256, {{latency, 1}}, {.jitter = 0.003});
    s.insert(s.end(), part.begin(), part.end());
  }
  const auto c = cluster_levels(s);
  ASSERT_EQ(c.k(), 1u);
  EXPECT_NEAR(c.levels[0].center, 303, 3);
}

TEST(Cluster, FarL2AndDramStayApart) {
  // 27 % apart, as on the H100; wide DRAM jitter.
  std::mt19937_64 rng(10);
  const auto s = draw(rng, 4096, {{550, 0.5}, {700, 0.5}}, {.jitter = 0.035});
  const auto c = cluster_levels(s);
  ASSERT_EQ(c.k(), 2u);
  EXPECT_NEAR(c.levels[1].center / c.levels[0].center, 700.0 / 550, 0.02);
}

TEST(Cluster, ScaleInvariantAndOrderFree) {
  std::mt19937_64 rng(6);
  auto s = draw(rng, 3000, {{35, 0.6}, {300, 0.4}}, {.integer_cycles = false});
  const auto c = cluster_levels(s);
  std::vector<double> scaled(s);
  for (double& v : scaled) v *= 2.5;
  const auto cs = cluster_levels(scaled);
  ASSERT_EQ(cs.k(), c.k());
  for (std::size_t i = 0; i < c.k(); ++i) {
    EXPECT_NEAR(cs.levels[i].center, 2.5 * c.levels[i].center, 1e-9 * cs.levels[i].center);
    EXPECT_DOUBLE_EQ(cs.levels[i].weight, c.levels[i].weight);
  }
  std::shuffle(s.begin(), s.end(), rng);
  const auto cr = cluster_levels(s);
  ASSERT_EQ(cr.k(), c.k());
  for (std::size_t i = 0; i < c.k(); ++i) EXPECT_DOUBLE_EQ(cr.levels[i].weight, c.levels[i].weight);
}

TEST(Cluster, PooledSpansEqualConcatenation) {
  std::mt19937_64 rng(7);
  const auto a = draw(rng, 1000, {{35, 1}});
  const auto b = draw(rng, 1000, {{300, 1}});
  std::vector<double> all(a);
  all.insert(all.end(), b.begin(), b.end());
  const std::span<const double> parts[] = {a, b};
  const auto pooled = cluster_levels(std::span<const std::span<const double>>(parts));
  const auto joined = cluster_levels(all);
  ASSERT_EQ(pooled.k(), joined.k());
  EXPECT_TRUE(pooled.labels.empty());
  EXPECT_EQ(pooled.boundaries, joined.boundaries);
}

TEST(Cluster, LevelFractionsSumToOne) {
  std::mt19937_64 rng(8);
  const auto s = draw(rng, 2048, {{35, 0.2}, {300, 0.5}, {700, 0.3}});
  const auto c = cluster_levels(s);
  const auto f = level_fractions(s, c);
  double sum = 0;
  for (double v : f) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(ShareInLevelOf, CountsTheLoadsAtTheReferenceLevel) {
  std::vector<double> near;
  std::vector<double> mixed;
  for (int i = 0; i < 400; ++i) {
    near.push_back(100 + i % 5);
    mixed.push_back(i % 4 == 0 ? 101 + i % 3 : 180 + i % 7);
  }
  EXPECT_NEAR(share_in_level_of(near, mixed), 0.25, 0.01);
  std::vector<double> far(mixed.begin(), mixed.end());
  for (auto& v : far) v = v < 150 ? v + 80 : v;
  EXPECT_NEAR(share_in_level_of(near, far), 0.0, 0.01);
  EXPECT_EQ(share_in_level_of({}, mixed), 0.0);
}

}  // namespace
}  // namespace gputopo::analysis
