#include "analysis/set_occupancy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace gputopo::analysis {
namespace {

// The last-pass misses of `lines` random lines of `population`, chased cyclically three times
// through an LRU cache of `sets` x `ways` whose index is a fixed random function of the line.
double simulated_share(std::uint32_t lines, std::uint32_t sets, std::uint32_t ways,
                       std::mt19937& rng) {
  std::vector<std::uint32_t> count(sets, 0);
  for (std::uint32_t i = 0; i < lines; ++i) ++count[rng() % sets];
  double missed = 0;
  for (const auto c : count)
    if (c > ways) missed += c;
  return missed / lines;
}

std::vector<Draw> draws_of(std::uint32_t sets, std::uint32_t ways, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Draw> draws;
  const std::uint32_t capacity = sets * ways;
  for (std::uint32_t n = capacity / 4; n <= capacity * 5 / 4; n += capacity / 16)
    for (int r = 0; r < 2; ++r)
      draws.push_back({static_cast<double>(n), simulated_share(n, sets, ways, rng)});
  return draws;
}

TEST(OverflowShare, IsTheShareOfLinesInSetsHoldingMoreThanTheWays) {
  EXPECT_DOUBLE_EQ(overflow_share(1, 64, 4), 0);
  // One set: every line misses once the lines outnumber the ways.
  EXPECT_DOUBLE_EQ(overflow_share(4, 1, 4), 0);
  EXPECT_DOUBLE_EQ(overflow_share(5, 1, 4), 1);
  // Two lines in two sets of one way: the other line shares the set half the time.
  EXPECT_NEAR(overflow_share(2, 2, 1), 0.5, 1e-12);
  EXPECT_GT(overflow_share(2048, 512, 4), overflow_share(2048, 512, 8));
}

TEST(SetOccupancy, FindsWaysAndSetsOfHashedCachesOfFewWaysFromRandomDraws) {
  for (const auto& [sets, ways] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {512, 4}, {480, 4}, {256, 2}, {1024, 2}}) {
    const auto fit = fit_set_occupancy(draws_of(sets, ways, sets + ways), sets * ways, 64);
    ASSERT_TRUE(fit.has_value());
    EXPECT_EQ(fit->best.ways, static_cast<int>(ways)) << sets << " x " << ways;
    EXPECT_GT(fit->best_probability, 0.99) << sets << " x " << ways;
    EXPECT_NEAR(fit->best.sets, sets, 0.03 * sets) << sets << " x " << ways;
    EXPECT_LE(fit->sets_lo, sets * 1.01) << sets << " x " << ways;
    EXPECT_GE(fit->sets_hi, sets * 0.99) << sets << " x " << ways;
  }
}

// Many ways of few sets: W and W + 1 with fewer sets fit the draws alike, and the fit says so.
TEST(SetOccupancy, ManyWaysOfFewSetsAreNotSeparated) {
  for (const auto& [sets, ways] :
       std::vector<std::pair<std::uint32_t, std::uint32_t>>{{128, 16}, {64, 31}}) {
    const auto fit = fit_set_occupancy(draws_of(sets, ways, sets + ways), sets * ways, 64);
    ASSERT_TRUE(fit.has_value());
    EXPECT_LT(fit->best_probability, 0.8) << sets << " x " << ways;
  }
}

// An H200's L1 (GPU-bcc1dfc1, docs/results/h200/l1-geometry): lines and last-pass misses of
// random lines from 32 MiB, three draws of each count; the fit is 4 ways of about 512 sets.
TEST(SetOccupancy, ReadsTheH200L1As512SetsOf4Ways) {
  const std::vector<std::pair<int, int>> seen = {
      {1024, 97},   {1088, 163},  {1152, 173},  {1216, 251},  {1280, 326},  {1344, 355},
      {1408, 419},  {1472, 445},  {1536, 509},  {1600, 659},  {1664, 646},  {1728, 705},
      {1792, 879},  {1856, 948},  {1920, 1020}, {1984, 1100}, {2048, 1150}, {2112, 1245},
      {2176, 1343}, {2240, 1439}, {2304, 1534}, {2368, 1599}, {2432, 1685}, {2496, 1839},
      {2560, 1849}, {2624, 1971}, {2688, 2064}, {2752, 2185}, {2816, 2231}, {1024, 176},
      {1088, 201},  {1152, 271},  {1216, 204},  {1280, 302},  {1344, 339},  {1408, 352},
      {1472, 510},  {1536, 522},  {1600, 597},  {1664, 662},  {1728, 742},  {1792, 862},
      {1856, 865},  {1920, 947},  {1984, 1091}, {2048, 1092}, {2112, 1185}, {2176, 1318},
      {2240, 1411}, {2304, 1564}, {2368, 1622}, {2432, 1759}, {2496, 1741}, {2560, 1820},
      {2624, 1893}, {2688, 2060}, {2752, 2202}, {2816, 2292}, {1024, 134},  {1088, 221},
      {1152, 236},  {1216, 282},  {1280, 311},  {1344, 391},  {1408, 396},  {1472, 527},
      {1536, 534},  {1600, 599},  {1664, 667},  {1728, 786},  {1792, 846},  {1856, 881},
      {1920, 1011}, {1984, 1075}, {2048, 1189}, {2112, 1296}, {2176, 1311}, {2240, 1462},
      {2304, 1534}, {2368, 1653}, {2432, 1673}, {2496, 1796}, {2560, 1871}, {2624, 1944},
      {2688, 2022}, {2752, 2131}, {2816, 2229}};
  std::vector<Draw> draws;
  for (const auto& [n, missed] : seen)
    draws.push_back({static_cast<double>(n), static_cast<double>(missed) / n});
  const auto fit = fit_set_occupancy(draws, 1920, 64);
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->best.ways, 4);
  EXPECT_NEAR(fit->best.sets, 512, 16);
  EXPECT_LT(fit->rms, 0.03);
  EXPECT_GT(fit->best_probability, 0.99);
}

}  // namespace
}  // namespace gputopo::analysis
