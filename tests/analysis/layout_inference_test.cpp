#include "analysis/layout_inference.hpp"

#include <gtest/gtest.h>

#include <cmath>

// The layout inference on hand-made cluster groups and per-SM latencies.
namespace gputopo::analysis {
namespace {

// Per-TPC latencies that differ between TPCs: TPC t reads 300 + (7 t mod 23) cycles.
std::vector<double> tpc_latencies(int sms, int sms_per_tpc) {
  std::vector<double> v;
  for (int sm = 0; sm < sms; ++sm) v.push_back(300.0 + (7 * (sm / sms_per_tpc)) % 23);
  return v;
}

TEST(GpcsFromClusters, JoinsGroupsOfEverySizeIntoComponents) {
  // Two GPCs {0..5} and {6..9}; no single cluster covers the first one.
  const std::vector<SmGroups> groups = {
      {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}}, {{0, 1, 2, 3}, {6, 7, 8, 9}}, {{2, 3, 4, 5}}};
  const auto p = gpcs_from_clusters(10, groups, 2);
  ASSERT_EQ(p.gpcs.size(), 2u);
  EXPECT_EQ(p.gpcs[0], (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(p.gpcs[1], (std::vector<int>{6, 7, 8, 9}));
  EXPECT_TRUE(p.uncovered.empty());
}

TEST(GpcsFromClusters, ReportsSmsThatRanInNoCluster) {
  const auto p = gpcs_from_clusters(6, {{{0, 2}, {1, 3}}}, 2);
  EXPECT_EQ(p.gpcs.size(), 2u);
  EXPECT_EQ(p.uncovered, (std::vector<int>{4, 5}));
  EXPECT_TRUE(gpcs_from_clusters(4, {}, 2).gpcs.empty());
}

TEST(GpcsFromClusters, PairsAloneDoNotPlaceATpcInAGpc) {
  // As on an H200: SMs 8..11 ran only in clusters of 2.
  const std::vector<SmGroups> groups = {{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}},
                                        {{0, 1, 2, 3}, {4, 5, 6, 7}}};
  const auto p = gpcs_from_clusters(12, groups, 3);
  EXPECT_EQ(p.gpcs.size(), 2u);
  EXPECT_EQ(p.uncovered, (std::vector<int>{8, 9, 10, 11}));
}

TEST(WithinGroupVarianceShare, NearZeroWhereGroupsExplainTheSpreadAboutOneWhereNot) {
  // Groups of 4 SMs with one latency each (plus 0.1 cycle of noise) explain the spread; the same
  // latencies grouped across those groups explain none of it.
  std::vector<double> latency;
  for (int sm = 0; sm < 16; ++sm) latency.push_back(300.0 + 10 * (sm / 4) + 0.1 * (sm % 2));
  const SmGroups by_four = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}};
  EXPECT_LT(within_group_variance_share(latency, by_four), 0.01);
  const SmGroups across = {{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}};
  EXPECT_GT(within_group_variance_share(latency, across), 0.9);
  // Unmeasured SMs and SMs in no group are left out; nothing to compare gives 1.
  latency[0] = std::nan("");
  EXPECT_LT(within_group_variance_share(latency, {{0, 1, 2, 3}, {4, 5, 6, 7}}), 0.01);
  EXPECT_EQ(within_group_variance_share(latency, {}), 1.0);
}

TEST(TpcsFromLatency, ConfirmsClusterPairsThatShareALatency) {
  const auto latency = tpc_latencies(16, 2);
  SmGroups pairs;
  for (int sm = 0; sm < 16; sm += 2) pairs.push_back({sm, sm + 1});
  const auto t = tpcs_from_latency(latency, 0.5, pairs);
  ASSERT_TRUE(t.established) << t.reason;
  EXPECT_EQ(t.tpcs.size(), 8u);
  EXPECT_EQ(t.sms_per_tpc, 2);
  EXPECT_GT(t.confidence, 0.99);
  EXPECT_NE(t.method.find("clusters"), std::string::npos);
}

TEST(TpcsFromLatency, PairsNotQuadsWhereNeighbouringPairsAlmostAgree) {
  // Per-SM near-hit latencies of an H100's first 24 SMs (trimmed means, cycles): the pairs are
  // equal, and some neighbouring pairs differ by only a cycle.
  const std::vector<double> latency = {272.1, 272.1, 271.2, 271.3, 272.0, 272.1, 271.4, 271.4,
                                       271.2, 271.2, 272.3, 272.2, 276.0, 276.1, 270.2, 270.2,
                                       274.6, 274.7, 275.1, 275.0, 276.2, 276.1, 276.0, 276.0};
  const auto t = tpcs_from_latency(latency, 7.0, {});
  ASSERT_TRUE(t.established) << t.reason;
  EXPECT_EQ(t.sms_per_tpc, 2);
  EXPECT_EQ(t.tpcs.size(), 12u);
}

TEST(TpcsFromLatency, FindsConsecutivePairsWithoutClusters) {
  const auto t = tpcs_from_latency(tpc_latencies(20, 2), 0.5, {});
  ASSERT_TRUE(t.established) << t.reason;
  EXPECT_EQ(t.tpcs.size(), 10u);
  EXPECT_EQ(t.sms_per_tpc, 2);
}

TEST(TpcsFromLatency, RejectsClusterPairsThatDisagree) {
  // One SM per TPC; clusters of 2 pair SMs of different TPCs.
  const auto latency = tpc_latencies(12, 1);
  SmGroups pairs = {{0, 2}, {1, 3}, {4, 6}, {5, 7}};
  const auto t = tpcs_from_latency(latency, 0.5, pairs);
  ASSERT_TRUE(t.established);
  EXPECT_EQ(t.sms_per_tpc, 1);
  EXPECT_EQ(t.tpcs.size(), 12u);
  EXPECT_LT(t.confidence, 0.9);
}

TEST(TpcsFromLatency, UniformLatencyConfirmsNothing) {
  const std::vector<double> flat(16, 300.0);
  EXPECT_FALSE(tpcs_from_latency(flat, 0.5, {}).established);
  SmGroups pairs;
  for (int sm = 0; sm < 16; sm += 2) pairs.push_back({sm, sm + 1});
  const auto t = tpcs_from_latency(flat, 0.5, pairs);
  ASSERT_TRUE(t.established);
  EXPECT_LT(t.confidence, 0.9);
  EXPECT_NE(t.reason.find("not confirmed"), std::string::npos);
}

TEST(TpcsFromLatency, MissingSmsAreTolerated) {
  auto latency = tpc_latencies(16, 2);
  latency[5] = std::nan("");
  const auto t = tpcs_from_latency(latency, 0.5, {});
  ASSERT_TRUE(t.established) << t.reason;
  EXPECT_EQ(t.sms_per_tpc, 2);
}

}  // namespace
}  // namespace gputopo::analysis
