#include <gtest/gtest.h>

#include <set>

#include "device/sim/config.hpp"
#include "device/sim/presets.hpp"
#include "device/sim/sim_device.hpp"
#include "sim_test_util.hpp"

namespace gputopo::device::sim {
namespace {
using test::chase_one;
using test::chase_request;
using test::fraction_above;
using test::KiB;
using test::median;
using test::MiB;

TEST(SimChase, H100ShowsL1NearFarAndDramLevels) {
  auto device = open("h100-sxm");
  const double l1 = median(chase_one(*device, chase_request(Space::L1, 16 * KiB)).cycles);
  const double near = median(chase_one(*device, chase_request(Space::L2, 4 * MiB)).cycles);
  const double far = median(chase_one(*device, chase_request(Space::L2, 40 * MiB)).cycles);
  const double dram = median(chase_one(*device, chase_request(Space::L2, 80 * MiB)).cycles);
  EXPECT_NEAR(l1, 33, 3);  // 32-cycle hit + 11-cycle overhead - 10 cycles the clock reads overlap
  EXPECT_GT(near, 250);
  EXPECT_LT(near, 350);
  EXPECT_GT(far, near + 150);
  EXPECT_GT(dram, far + 80);
}

TEST(SimChase, NearHitsEndAtOneSegmentAndFarHitsAtTheWholeL2) {
  auto device = open("h100-sxm");
  const auto near_limit = 268.0 + 1 + 35 + 20;  // slowest SM's near hit plus jitter
  const auto fraction_far = [&](std::uint64_t bytes) {
    auto r = chase_request(Space::L2, bytes, 128, 2048);
    return fraction_above(chase_one(*device, r).cycles, near_limit);
  };
  EXPECT_LT(fraction_far(20 * MiB), 0.02);
  EXPECT_GT(fraction_far(30 * MiB), 0.9);
  const auto fraction_dram = [&](std::uint64_t bytes) {
    auto r = chase_request(Space::L2, bytes, 128, 2048);
    return fraction_above(chase_one(*device, r).cycles, 610);  // past the slowest far hit
  };
  EXPECT_LT(fraction_dram(45 * MiB), 0.05);
  EXPECT_GT(fraction_dram(60 * MiB), 0.9);
}

TEST(SimChase, SegmentLatenciesCanDifferPerSegment) {
  model::Json toy;
  for (const auto& [name, text] : embedded_presets())
    if (name == "toy") toy = model::Json::parse(text);
  toy["l2"]["near_latency_cycles"] = model::Json::array({90, 120});
  toy["l2"]["far_latency_cycles"] = model::Json::array({200, 300});
  toy["l2"]["sm_latency_spread_cycles"] = 0;
  toy["noise"]["outlier_rate"] = 0;
  auto device = make_device(parse_config(toy.dump(), "toy-segments.json"));
  const auto latency = [&](int sm, std::uint64_t bytes) {
    auto r = chase_request(Space::L2, bytes, 64, 256);
    r.sm = sm;
    return median(chase_one(*device, r).cycles) - 10 + 6;  // the toy's overhead less overlap
  };
  // SM 0 sits in GPC 0 (segment 0), SM 1 in GPC 1 (segment 1); a 768 KiB array overflows the
  // 512 KiB near segment into the other one.
  EXPECT_NEAR(latency(0, 64 * KiB), 90, 3);
  EXPECT_NEAR(latency(1, 64 * KiB), 120, 3);
  EXPECT_NEAR(latency(0, 768 * KiB), 300, 3);
  EXPECT_NEAR(latency(1, 768 * KiB), 200, 3);
}

TEST(SimChase, CarveoutDecidesTheL1Size) {
  auto device = open("h100-sxm");
  const auto misses = [&](std::uint64_t bytes, int carveout) {
    auto r = chase_request(Space::L1, bytes, 128, 2048);
    return fraction_above(chase_one(*device, r, carveout).cycles, 100);
  };
  EXPECT_LT(misses(200 * KiB, 0), 0.01);
  EXPECT_GT(misses(200 * KiB, 100), 0.9);
  EXPECT_LT(misses(20 * KiB, 100), 0.01);
  EXPECT_GT(misses(64 * KiB, 100), 0.9);
}

TEST(SimChase, FetchGranularityDecidesHitsWithinALine) {
  auto device = open("h100-sxm");
  // L1 fetches 32 B: with a 16 B stride every second load of a cold pass hits; with 32 B none.
  auto small = chase_request(Space::L1, 4 * MiB, 16, 1024);
  small.warmup_passes = 0;
  auto sector = small;
  sector.stride_bytes = 32;
  EXPECT_NEAR(fraction_above(chase_one(*device, small).cycles, 100), 0.5, 0.05);
  EXPECT_GT(fraction_above(chase_one(*device, sector).cycles, 100), 0.95);
}

// A device replays a strided chase it has run before (docs/sim.md, "Speed"): the replay gives what
// a device that simulates the chase under the same seed gives, its busy time included.
TEST(SimChase, AReplayedChaseIsTheSimulatedOne) {
  ChaseBatch chase;
  chase.requests = {chase_request(Space::L2, 40 * MiB, 128, 2048)};  // near, far and DRAM loads
  chase.requests[0].record_indices = true;
  ChaseBatch other;
  other.requests = {chase_request(Space::L2, 24 * MiB, 128, 2048)};
  auto replaying = open("h100-sxm");
  auto simulating = open("h100-sxm");
  const ChaseBatchResult first = replaying->chase(chase);
  simulating->chase(other);  // so that both devices' next batch has the same seed
  const ChaseBatchResult replayed = replaying->chase(chase);
  const ChaseBatchResult simulated = simulating->chase(chase);
  EXPECT_EQ(replayed.results[0].cycles, simulated.results[0].cycles);
  EXPECT_EQ(replayed.results[0].indices, simulated.results[0].indices);
  EXPECT_EQ(replayed.conditions.elapsed_cycles, simulated.conditions.elapsed_cycles);
  EXPECT_NE(replayed.results[0].cycles, first.results[0].cycles);  // the seed's own noise
}

TEST(SimChase, RandomPatternVisitsEveryElementOnce) {
  auto device = open("toy");
  auto r = chase_request(Space::L1, 64 * KiB, 64, 1024);
  r.pattern = Pattern::Random;
  r.record_indices = true;
  const auto result = chase_one(*device, r);
  ASSERT_EQ(result.indices.size(), 1024u);
  EXPECT_EQ(std::set<std::uint64_t>(result.indices.begin(), result.indices.end()).size(), 1024u);
  bool in_order = true;
  for (std::size_t i = 1; i < result.indices.size(); ++i)
    in_order = in_order && result.indices[i] == (result.indices[i - 1] + 1) % 1024;
  EXPECT_FALSE(in_order);
}

TEST(SimChase, StridedIndicesFollowTheArray) {
  auto device = open("toy");
  auto r = chase_request(Space::L1, 1 * KiB, 64, 40);
  r.record_indices = true;
  const auto result = chase_one(*device, r);
  ASSERT_EQ(result.indices.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(result.indices[i], (i + 1) % 16);
}

TEST(SimChase, OverheadIsReportedAndPerLoadSamplesReadTheOverlapLess) {
  auto device = open("h100-sxm");
  const auto cfg = load_config("h100-sxm");
  const auto result = chase_one(*device, chase_request(Space::Shared, 4 * KiB, 4));
  EXPECT_EQ(result.overhead_cycles, cfg.overhead_cycles);
  EXPECT_NEAR(median(result.cycles) - result.overhead_cycles,
              cfg.shared.latency_cycles - cfg.overlap_cycles, 1);
}

TEST(SimChase, AChainReturnsSegmentTotalsOfTheLatencyAlone) {
  // Without the rare slow loads, which would lengthen a segment by up to 12 cycles a load.
  auto cfg = load_config("h100-sxm");
  cfg.noise.outlier_rate = 0;
  auto device = make_device(cfg);
  auto r = chase_request(Space::Shared, 4 * KiB, 32, 4 * kChainSegmentLoads);
  r.timing = Timing::Chain;
  const auto result = chase_one(*device, r);
  ASSERT_EQ(result.cycles.size(), 4u);
  EXPECT_EQ(result.overhead_cycles, 0);
  for (const auto c : result.cycles)
    EXPECT_NEAR(c / double{kChainSegmentLoads}, cfg.shared.latency_cycles, 0.5);
  auto l1 = chase_request(Space::L1, 16 * KiB, 64, 2 * kChainSegmentLoads);
  l1.timing = Timing::Chain;
  EXPECT_NEAR(median(chase_one(*device, l1).cycles) / kChainSegmentLoads,
              cfg.caches.front().latency_cycles, 0.5);
}

TEST(SimChase, ChainRequestsThatCannotRunAreRefused) {
  auto device = open("toy");
  auto r = chase_request(Space::L1, 16 * KiB, 64, 100);
  r.timing = Timing::Chain;
  EXPECT_THROW(chase_one(*device, r), Error);  // not whole segments
  r.recorded_loads = kChainSegmentLoads;
  r.stride_bytes = 12;
  EXPECT_THROW(chase_one(*device, r), Error);  // device-memory chains hold 8-byte addresses
  r.stride_bytes = 64;
  r.record_indices = true;
  EXPECT_THROW(chase_one(*device, r), Error);
  r.record_indices = false;
  EXPECT_NO_THROW(chase_one(*device, r));
  InterferenceBatch b;
  b.requests.push_back({r, chase_request(Space::L1, 16 * KiB)});
  EXPECT_THROW(device->interfere(b), Error);
}

TEST(SimChase, ConstantGoesThroughL1ThenL15) {
  auto device = open("h100-sxm");
  const double cl1 = median(chase_one(*device, chase_request(Space::Constant, 1 * KiB, 64)).cycles);
  const double cl15 =
      median(chase_one(*device, chase_request(Space::Constant, 32 * KiB, 64)).cycles);
  EXPECT_LT(cl1 + 40, cl15);
  EXPECT_LT(cl15, 200);
}

TEST(SimChase, SmPlacementIsReportedAndL2LatencyDependsOnTheTpc) {
  auto device = open("h100-sxm");
  std::vector<double> latency;
  for (int sm : {0, 1, 6, 7, 40, 41}) {
    auto r = chase_request(Space::L2, 1 * MiB, 128, 256);
    r.sm = sm;
    const auto result = chase_one(*device, r);
    EXPECT_EQ(result.sm, sm);
    latency.push_back(median(result.cycles));
  }
  EXPECT_NEAR(latency[0], latency[1], 2);
  EXPECT_NEAR(latency[2], latency[3], 2);
  EXPECT_NEAR(latency[4], latency[5], 2);
}

TEST(SimChase, PrivateBatchesSpreadOverSms) {
  auto device = open("h100-sxm");
  ChaseBatch batch;
  for (int i = 0; i < 4; ++i) batch.requests.push_back(chase_request(Space::L1, 8 * KiB));
  const auto out = device->chase(batch);
  ASSERT_EQ(out.results.size(), 4u);
  std::set<int> sms;
  for (const auto& r : out.results) sms.insert(r.sm);
  EXPECT_EQ(sms.size(), 4u);
  EXPECT_GT(out.conditions.elapsed_ns, 0);
  EXPECT_GT(out.conditions.elapsed_cycles, 0);
}

TEST(SimChase, ASequenceVisitsItsElementsInOrderAndRevisitsALineThroughAnotherElement) {
  auto device = open("geo-lru4");  // 16 KiB 4-way LRU L1, 64 sets of 64 B: 4 KiB apart is one set
  ChaseRequest r;
  r.space = Space::L1;
  r.stride_bytes = 4;
  r.array_bytes = 5 * 4096;
  r.warmup_passes = 0;
  r.pattern = Pattern::Sequence;
  r.record_indices = true;
  // Lines 0-3 fill the set, line 0 again (a hit: element 1 lies in line 0's sector), line 4
  // evicts line 1 (LRU), then lines 0 and 1 again: a hit and a miss.
  const std::uint64_t line = 4096 / 4;
  r.sequence = {0, line, 2 * line, 3 * line, 1, 4 * line, 2, line + 1};
  r.recorded_loads = static_cast<std::uint32_t>(r.sequence.size());
  const auto result = chase_one(*device, r);
  ASSERT_EQ(result.indices.size(), r.sequence.size());
  for (std::size_t i = 0; i < r.sequence.size(); ++i)
    EXPECT_EQ(result.indices[i], r.sequence[(i + 1) % r.sequence.size()]);
  const double hit = static_cast<double>(result.cycles[4]);
  EXPECT_LT(static_cast<double>(result.cycles[6]), hit + 5);   // line 0 kept
  EXPECT_GT(static_cast<double>(result.cycles[7]), hit + 50);  // line 1 evicted
}

TEST(SimChase, SequencesMustStartAtZeroListEachElementOnceAndHaveNoWarmup) {
  auto device = open("toy");
  ChaseRequest r;
  r.space = Space::L1;
  r.stride_bytes = 4;
  r.array_bytes = 1024;
  r.warmup_passes = 0;
  r.pattern = Pattern::Sequence;
  r.sequence = {1, 2};
  EXPECT_THROW(chase_one(*device, r), Error);
  r.sequence = {0, 2, 2};
  EXPECT_THROW(chase_one(*device, r), Error);
  r.sequence = {0, 256};
  EXPECT_THROW(chase_one(*device, r), Error);
  r.sequence = {0, 2};
  r.warmup_passes = 1;
  EXPECT_THROW(chase_one(*device, r), Error);
  r.warmup_passes = 0;
  EXPECT_NO_THROW(chase_one(*device, r));
}

}  // namespace
}  // namespace gputopo::device::sim
