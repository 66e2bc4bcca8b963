#include "analysis/profile_groups.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

// Rows grouped by profile, on synthetic SM x line latencies and on the recorded H100 table.
namespace gputopo::analysis {
namespace {

// SM s sits at port s % ports; line l costs base + offset(port, l) + noise from every SM.
std::vector<std::vector<double>> port_latencies(int sms, int ports, int lines, double amplitude,
                                                double noise) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> offset(-amplitude, amplitude);
  std::normal_distribution<double> jitter(0, noise);
  std::vector<std::vector<double>> by_port(ports, std::vector<double>(lines));
  for (auto& p : by_port)
    for (double& v : p) v = offset(rng);
  std::vector<std::vector<double>> rows(sms, std::vector<double>(lines));
  for (int s = 0; s < sms; ++s)
    for (int l = 0; l < lines; ++l)
      rows[s][l] = 280 + 3 * (s % 4) + by_port[s % ports][l] + jitter(rng);
  return rows;
}

TEST(GroupProfiles, FindsThePortsOfSmsFromTheirLineProfiles) {
  const auto g = group_profiles(port_latencies(15, 3, 64, 20, 2));
  EXPECT_TRUE(g.established) << g.reason;
  ASSERT_EQ(g.groups.size(), 3u);
  EXPECT_EQ(g.groups[0], (std::vector<int>{0, 3, 6, 9, 12}));
  EXPECT_EQ(g.groups[2], (std::vector<int>{2, 5, 8, 11, 14}));
  EXPECT_GE(g.margin, 1.0);
}

TEST(GroupProfiles, SaysNotEstablishedWhenTheSignalDrownsInNoise) {
  const auto g = group_profiles(port_latencies(16, 4, 64, 0.5, 4));
  EXPECT_FALSE(g.established);
  EXPECT_NE(g.reason.find("split into no groups"), std::string::npos);
}

TEST(GroupProfiles, TooFewRowsAreOneGroup) {
  const auto g = group_profiles({{1, 2}, {2, 1}});
  EXPECT_FALSE(g.established);
  EXPECT_EQ(g.groups.size(), 1u);
}

TEST(SolveXorHash, RecoversTheMasksOfALinearHash) {
  // Slice bit 0 = parity(x & 0b0101), bit 1 = parity(x & 0b1110): the reduced masks span these.
  std::vector<int> cls(16);
  for (int x = 0; x < 16; ++x)
    cls[x] =
        std::popcount(unsigned(x) & 0b0101u) % 2 + 2 * (std::popcount(unsigned(x) & 0b1110u) % 2);
  const auto h = solve_xor_hash(cls);
  ASSERT_TRUE(h.linear) << h.reason;
  EXPECT_EQ(h.rank, 2);
  ASSERT_EQ(h.masks.size(), 2u);
  // Row space of {0101, 1110} in reduced form: {1110, 0101} -> leading bits 3 and 2, no overlap.
  EXPECT_EQ(h.masks[0], 0b1011u);
  EXPECT_EQ(h.masks[1], 0b0101u);
}

TEST(SolveXorHash, SaysWhenTheClassesAreNotLinear) {
  std::vector<int> cls(64);
  for (int x = 0; x < 64; ++x) cls[x] = x % 3;
  const auto h = solve_xor_hash(cls);
  EXPECT_FALSE(h.linear);
  EXPECT_LT(h.consistency, 1.0);
  EXPECT_NE(h.reason.find("no linear hash"), std::string::npos);
}

TEST(SolveXorHash, ToleratesAFewStrayLinesOnlyWhenAskedTo) {
  // Four slices by masks 0b100001 and 0b000110 over 256 lines; line 77 is put in a neighbour.
  std::vector<int> cls(256);
  for (unsigned x = 0; x < 256; ++x)
    cls[x] =
        static_cast<int>(std::popcount(x & 0b100001u) % 2 + 2 * (std::popcount(x & 0b110u) % 2));
  cls[77] = (cls[77] + 1) % 4;
  EXPECT_FALSE(solve_xor_hash(cls).linear);
  const auto h = solve_xor_hash(cls, 0.01);
  ASSERT_TRUE(h.linear) << h.reason;
  EXPECT_EQ(h.rank, 2);
  EXPECT_EQ(h.misfits, 1);
  // A quadratic function of the bits (the H100's segment split) stays non-linear.
  std::vector<int> quad(256);
  for (unsigned x = 0; x < 256; ++x)
    quad[x] = static_cast<int>(
        ((x >> 1) ^ (x >> 3) ^ (((x >> 1) ^ (x >> 5)) & ~((x >> 4) ^ (x >> 7)))) & 1u);
  EXPECT_FALSE(solve_xor_hash(quad, 0.01).linear);
}

nlohmann::json h100_table() {
  std::ifstream in(std::string(GPUTOPO_TEST_DATA) + "/analysis/h100-sm-slice-latency.json");
  EXPECT_TRUE(in.good()) << "missing tests/data/analysis/h100-sm-slice-latency.json";
  return nlohmann::json::parse(in);
}

std::vector<std::vector<double>> h100_rows(const nlohmann::json& t) {
  std::vector<std::vector<double>> rows;
  for (const auto& sm : t["latency"]) {
    const auto all = sm.get<std::vector<double>>();
    rows.emplace_back(all.begin(), all.begin() + 1024);
  }
  return rows;
}

// The clearest cut of the H100's SM profiles is a union of whole co-scheduling GPCs.
TEST(GroupProfiles, H100SmGroupsAreUnionsOfCoschedulingGpcs) {
  const auto t = h100_table();
  const auto g = group_profiles(h100_rows(t));
  EXPECT_TRUE(g.established) << g.reason;
  EXPECT_GE(g.groups.size(), 2u);
  for (const auto& gpc : t["gpcsByCoscheduling"]) {
    std::set<int> labels;
    for (int sm : gpc) labels.insert(g.label[sm]);
    EXPECT_EQ(labels.size(), 1u) << "a co-scheduling GPC split across latency groups";
  }
}

// Synthetic GPCs at ports: 4 GPCs of 6 SMs, GPCs 0 and 1 share a port. SMs 20-23 unplaced.
TEST(PlaceByProfile, SetsAreGpcsThatShareAPort) {
  auto rows = port_latencies(24, 24, 64, 0, 0);
  const auto ports = port_latencies(3, 3, 64, 20, 0);
  std::mt19937 rng(3);
  std::normal_distribution<double> jitter(0, 1.5);
  const std::vector<int> port_of_gpc = {0, 0, 1, 2};
  for (int s = 0; s < 24; ++s)
    for (int l = 0; l < 64; ++l) rows[s][l] = 300 + ports[port_of_gpc[s / 6]][l] + jitter(rng);
  const std::vector<std::vector<int>> gpcs = {
      {0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}, {12, 13, 14, 15, 16, 17}, {18, 19}};
  const auto p = place_by_profile(rows, gpcs);
  ASSERT_EQ(p.sets.size(), 3u);
  EXPECT_EQ(p.sets[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(p.unplaced, (std::vector<int>{20, 21, 22, 23}));
  for (int s : p.set_of_unplaced) EXPECT_EQ(s, p.set_of_group[3]);
  EXPECT_EQ(p.placed_total, 20);
}

// SMs at a port of their own stand apart from every set.
TEST(PlaceByProfile, AnSmUnlikeEveryGroupStandsApart) {
  const auto rows = port_latencies(12, 3, 64, 20, 1);  // ports 0, 1, 2 by SM % 3
  const auto p = place_by_profile(rows, {{0, 3, 6}, {1, 4, 7}});
  ASSERT_EQ(p.unplaced.size(), 6u);
  for (std::size_t k = 0; k < p.unplaced.size(); ++k)
    EXPECT_EQ(p.set_of_unplaced[k] < 0, p.unplaced[k] % 3 == 2) << p.unplaced[k];
}

TEST(PlaceByProfile, IgnoresMembersThatAreNoRow) {
  const auto rows = port_latencies(8, 2, 16, 20, 1);
  const auto p = place_by_profile(rows, {{0, 2, 99, -1}, {1, 3, 3, 0}});
  EXPECT_EQ(p.placed_total, 4);
  EXPECT_EQ(p.sets.size(), 2u);
  EXPECT_TRUE(place_by_profile({}, {{0}}).sets.empty());
}

// On the H100 the profile cannot tell the two GPCs of a port apart: the 8 co-scheduling GPCs form
// 4 sets of 2, and the 8 SMs that clusters never place all go to one set.
TEST(PlaceByProfile, H100GpcsPairUpAndUnplacedSmsJoinOnePair) {
  const auto t = h100_table();
  const auto gpcs = t["gpcsByCoscheduling"].get<std::vector<std::vector<int>>>();
  const auto p = place_by_profile(h100_rows(t), gpcs);
  EXPECT_EQ(p.sets.size(), 4u);
  for (const auto& s : p.sets) EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(p.unplaced, (std::vector<int>{124, 125, 126, 127, 128, 129, 130, 131}));
  const std::set<int> sets(p.set_of_unplaced.begin(), p.set_of_unplaced.end());
  EXPECT_EQ(sets.size(), 1u);
  EXPECT_GE(*sets.begin(), 0);
  for (std::size_t k = 0; k < p.unplaced.size(); ++k) EXPECT_GT(p.best[k] - p.next[k], 0.1);
}

}  // namespace
}  // namespace gputopo::analysis
