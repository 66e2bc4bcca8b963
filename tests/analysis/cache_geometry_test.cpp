#include "analysis/cache_geometry.hpp"

#include <gtest/gtest.h>

namespace gputopo::analysis {
namespace {

std::vector<StrideCapacity> profile(int first, std::vector<std::uint64_t> lines) {
  std::vector<StrideCapacity> p;
  for (std::size_t i = 0; i < lines.size(); ++i)
    p.push_back({first + static_cast<int>(i), lines[i]});
  return p;
}

TEST(InferIndex, PlainModuloHalvesFromTheLineBitThenLevelsOffAtTheWays) {
  // 4 ways x 8 sets of 64 B lines.
  const auto r = infer_index(profile(6, {32, 16, 8, 4, 4, 4}), 6);
  EXPECT_EQ(r.kind, IndexInference::Kind::Plain);
  EXPECT_EQ(r.ways, 4u);
  EXPECT_EQ(r.sets, 8u);
  EXPECT_EQ(r.halving, (std::vector<int>{6, 7, 8}));
}

TEST(InferIndex, AHashKeepsTheWholeCapacityAtLowStridesAndHalvesAtItsTopBits) {
  const auto r = infer_index(profile(7, {64, 64, 64, 64, 32, 16, 8, 8}), 7);
  EXPECT_EQ(r.kind, IndexInference::Kind::Hashed);
  EXPECT_EQ(r.ways, 8u);
  EXPECT_EQ(r.sets, 8u);
  EXPECT_EQ(r.halving, (std::vector<int>{10, 11, 12}));
}

TEST(InferIndex, NoLevelMeansWaysAndSetsAreNotSeparated) {
  const auto hashed = infer_index(profile(7, {64, 64, 64, 32}), 7);
  EXPECT_EQ(hashed.kind, IndexInference::Kind::Hashed);
  EXPECT_FALSE(hashed.ways);
  const auto whole = infer_index(profile(7, {64, 64, 64, 64}), 7);
  EXPECT_EQ(whole.kind, IndexInference::Kind::FullyAssociative);
  EXPECT_FALSE(whole.ways);
}

TEST(InferIndex, AStepThatIsNeitherOneNorAHalfIsInconsistent) {
  EXPECT_EQ(infer_index(profile(6, {32, 15, 8, 8}), 6).kind, IndexInference::Kind::Inconsistent);
  // A bounded (lower-bound) capacity ends the exact profile.
  auto p = profile(6, {32, 16, 8});
  p[1].bounded = true;
  EXPECT_EQ(infer_index(p, 6).kind, IndexInference::Kind::Inconsistent);
}

TEST(PredictedVictim, TheExperimentsTellLruFifoAndTreePlruApart) {
  for (const std::uint64_t ways : {4u, 8u, 16u}) {
    int differ_fifo = 0;
    int differ_plru = 0;
    for (const auto& touches : victim_experiments(ways)) {
      const auto lru = predicted_victim(Policy::Lru, ways, touches);
      differ_fifo += lru != predicted_victim(Policy::Fifo, ways, touches);
      differ_plru += lru != predicted_victim(Policy::TreePlru, ways, touches);
    }
    EXPECT_GT(differ_fifo, 0) << ways;
    EXPECT_GT(differ_plru, 0) << ways;
  }
  EXPECT_EQ(predicted_victim(Policy::Lru, 4, {0}), 1u);
  EXPECT_EQ(predicted_victim(Policy::Fifo, 4, {0}), 0u);
  EXPECT_FALSE(predicted_victim(Policy::TreePlru, 6, {}));
}

}  // namespace
}  // namespace gputopo::analysis
