#include "analysis/cluster_occupancy.hpp"

#include <gtest/gtest.h>

namespace gputopo::analysis {
namespace {

// SMs first..first+n-1.
std::vector<int> run(int first, int n) {
  std::vector<int> sms;
  for (int i = 0; i < n; ++i) sms.push_back(first + i);
  return sms;
}

// The counts the driver gave on an H100 SXM and an H200 for cluster sizes 2 to 16 (one block per
// SM, non-portable sizes allowed).
const std::map<int, int> kHopperCounts{{2, 66}, {3, 39}, {4, 30}, {5, 22}, {6, 17},
                                       {7, 15}, {8, 15}, {9, 9},  {10, 7}, {11, 7},
                                       {12, 7}, {13, 7}, {14, 7}, {15, 7}, {16, 7}};

TEST(ClusterOccupancy, PredictedCountsSumFloorsOverUnits) {
  const auto c = predicted_cluster_counts({8, 16, 18, 2}, {1, 2, 3, 9, 16, 17});
  EXPECT_EQ(c.at(1), 44);
  EXPECT_EQ(c.at(2), 4 + 8 + 9 + 1);
  EXPECT_EQ(c.at(3), 2 + 5 + 6 + 0);
  EXPECT_EQ(c.at(9), 0 + 1 + 2 + 0);
  EXPECT_EQ(c.at(16), 2);
  EXPECT_EQ(c.at(17), 1);
}

TEST(ClusterOccupancy, HopperCountsAreReproducedOnlyWithTheFourLooseTpcsStandingAlone) {
  // The GPCs that clusters of 3 to 16 joined on the H100 (8, 5 x 16, 2 x 18 SMs), and the four
  // TPCs that ran only in clusters of 2.
  SmGroups fixed{run(0, 8)};
  int next = 8;
  for (int size : {16, 16, 16, 16, 16, 18, 18}) {
    fixed.push_back(run(next, size));
    next += size;
  }
  SmGroups loose;
  for (int t = 0; t < 4; ++t) loose.push_back(run(124 + 2 * t, 2));
  const OccupancyFit fit = fit_cluster_counts(fixed, loose, kHopperCounts);
  EXPECT_TRUE(fit.complete);
  ASSERT_EQ(fit.matching.size(), 1u);
  EXPECT_EQ(fit.matching[0].target, (std::vector<int>{8, 9, 10, 11}));
  EXPECT_EQ(fit.matching[0].units.size(), 12u);
  // 8 + 4 + 1 + ... : every partition of 4 loose groups over 8 components and new units.
  EXPECT_GT(fit.tried, 4000u);
}

TEST(ClusterOccupancy, ALooseSmIsPlacedWhereTheCountsNeedIt) {
  // Clusters of 3 left SM 3 out; 2 pairs fit at once, so SM 3 shares a unit with SMs 0-2.
  const OccupancyFit fit = fit_cluster_counts({run(0, 3), run(4, 3)}, {{3}}, {{2, 3}, {3, 2}});
  ASSERT_EQ(fit.matching.size(), 2u);  // with either component: the counts cannot tell which
  EXPECT_EQ(fit.targets_of_loose[0], (std::vector<int>{0, 1}));
  // Units of 4 and 5 SMs give 4 pairs and 2 triples; 3 + 6 would give 3 triples, 3 + 5 + 1 3 pairs.
  const OccupancyFit one = fit_cluster_counts({run(0, 3), run(4, 5)}, {{3}}, {{2, 4}, {3, 2}});
  ASSERT_EQ(one.matching.size(), 1u);
  EXPECT_EQ(one.matching[0].units[0], (std::vector<int>{0, 1, 2, 3}));
}

TEST(ClusterOccupancy, CountsNoStructureReproducesGiveNoMatch) {
  const OccupancyFit fit = fit_cluster_counts({run(0, 4)}, {{4, 5}}, {{2, 5}});
  EXPECT_TRUE(fit.matching.empty());
  EXPECT_EQ(fit.targets_of_loose[0], std::vector<int>{});
}

TEST(ClusterOccupancy, TheLimitStopsTheSearchAndSaysSo) {
  SmGroups loose;
  for (int i = 0; i < 12; ++i) loose.push_back({i});
  const OccupancyFit fit = fit_cluster_counts({run(100, 4)}, loose, {{2, 8}}, 1000);
  EXPECT_FALSE(fit.complete);
  EXPECT_EQ(fit.tried, 1000u);
}

// Issue 32 row 2: 160 loose pairs match in nearly every partition; the search keeps a few, counts
// the rest and still knows every unit each pair took.
TEST(ClusterOccupancy, ManyMatchingAssignmentsAreCountedNotKept) {
  SmGroups loose;
  for (int i = 0; i < 160; ++i) loose.push_back({2 * i, 2 * i + 1});
  const OccupancyFit fit = fit_cluster_counts({}, loose, {{2, 160}}, 200000);
  EXPECT_FALSE(fit.complete);
  EXPECT_EQ(fit.matching_count, fit.tried);
  EXPECT_EQ(fit.matching.size(), OccupancyFit::kKeptMatching);
  EXPECT_GE(fit.most_new_units, 2);
  EXPECT_EQ(fit.targets_of_loose[0], std::vector<int>{0});
  EXPECT_GE(fit.targets_of_loose[159].size(), 2u);
}

}  // namespace
}  // namespace gputopo::analysis
