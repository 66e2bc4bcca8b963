#include <gtest/gtest.h>

#include <bit>
#include <set>
#include <string>

#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"
#include "result_access.hpp"
#include "sim_truth.hpp"

// End to end on the presets of issue 31's estimator classes (docs/methods.md): each preset holds
// one shape that misled an estimator, and the discovery must read it right or say it cannot.
namespace gputopo::discovery {
namespace {

using testing::attr;
using testing::number;

Result run(const std::string& preset, std::set<std::string> only, std::uint64_t seed) {
  auto dev = device::sim::open(preset, seed);
  NullProgress progress;
  Options o;
  o.depth = Depth::Full;
  o.only = std::move(only);
  return discover(*dev, o, progress, nullptr);
}

// An attribute that must be established (confidence at least 0.5) with this value.
void expect_value(const Result& r, const std::string& element, const std::string& key,
                  const model::Json& value) {
  SCOPED_TRACE(element + "." + key);
  const auto* a = attr(r, element, key);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->available()) << a->reason;
  EXPECT_EQ(a->value, value) << a->reason << " " << a->evidence.dump();
  EXPECT_GE(a->confidence.value_or(0), 0.5);
}

// A plain-indexed cache's geometry: ways, sets and the index bits.
void expect_plain_geometry(const Result& r, const std::string& element,
                           const device::sim::CacheGeometry& g) {
  const int line_bit = std::countr_zero(g.line_bytes);
  expect_value(r, element, "associativity", g.ways);
  expect_value(r, element, "sets", g.sets());
  expect_value(r, element, "indexFunction",
               "modulo: address bits " + std::to_string(line_bit) + "-" +
                   std::to_string(line_bit + std::countr_zero(g.sets()) - 1));
}

class Seeds : public ::testing::TestWithParam<std::uint64_t> {};

// Class 2: a random-replacement L2 keeps part of every pass past its capacity; the line probe
// reads the line where the miss share collapses, and the geometry follows from it.
TEST_P(Seeds, RandomReplacementL2HasItsLineAndGeometry) {
  const auto cfg = device::sim::load_config("est-l2-random");
  const Result r = run("est-l2-random", {"l2"}, GetParam());
  const auto& g = cfg.l2.geometry;
  expect_value(r, "l2", "lineSize", g.line_bytes);
  expect_plain_geometry(r, "l2", g);
  expect_value(r, "l2", "replacementPolicy", "random");
}

// Class 6: an L1 measured not to allocate on stores passed every store to the L2, so stored
// lines missing from the L2 show that the L2 does not allocate either.
TEST_P(Seeds, StoresPastANonAllocatingL1ShowTheL2) {
  const auto cfg = device::sim::load_config("est-stores");
  ASSERT_FALSE(cfg.l2.geometry.write_allocate);
  const Result r = run("est-stores", {"l1", "l2"}, GetParam());
  expect_value(r, "l1", "writeAllocate", false);
  expect_value(r, "l2", "writeAllocate", false);
}

// Class 7: translation misses as costly as an L2 miss at strides whose pages the TLB cannot hold;
// the L2's geometry counts only as many lines there as the measured TLB keeps.
TEST_P(Seeds, CostlyTranslationMissesLeaveTheL2GeometryRight) {
  const auto cfg = device::sim::load_config("est-tlb-costly");
  const Result r = run("est-tlb-costly", {"l2", "tlb"}, GetParam());
  expect_plain_geometry(r, "l2", cfg.l2.geometry);
  expect_value(r, "l2", "replacementPolicy", "LRU");
}

// Class 8: SMs of one segment of an 8-way L2 evict under half of each other's lines, SMs of two
// none: a clean split, whose cut holds for the rounds after it.
TEST_P(Seeds, EightWayL2SegmentsGroupTheirSms) {
  const auto cfg = device::sim::load_config("est-l2-8way");
  const Result r = run("est-l2-8way", {"l2Segments"}, GetParam());
  const auto* a = model::find(r.compute, "nearL2Segments");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->available()) << a->reason;
  EXPECT_EQ(number(a), cfg.l2.segments) << a->evidence.dump();
  EXPECT_GE(a->confidence.value_or(0), 0.5);
  const auto& of_sm = a->evidence.at("segmentOfSm");
  for (std::size_t s = 0; s < cfg.l2.sm_segment.size(); ++s)
    for (std::size_t t = 0; t < s; ++t)
      EXPECT_EQ(of_sm.at(s) == of_sm.at(t), cfg.l2.sm_segment[s] == cfg.l2.sm_segment[t])
          << "SMs " << t << " and " << s << ": " << a->evidence.dump();
}

// The constant L1 and L1.5 of a preset, as the configuration says.
struct ConstantTruth {
  testing::ElementTruth l1, l15;
};

ConstantTruth constant_truth(const device::sim::SimConfig& cfg) {
  ConstantTruth t;
  for (const auto& e : testing::l1_family_truth(cfg, 0)) {
    if (e.element == "constantL1") t.l1 = e;
    if (e.element == "constantL15") t.l15 = e;
  }
  return t;
}

// A number within `rel` of the truth, established.
void expect_near(const Result& r, const std::string& element, const std::string& key, double truth,
                 double rel) {
  SCOPED_TRACE(element + "." + key);
  const auto* a = attr(r, element, key);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->available()) << a->reason;
  EXPECT_NEAR(number(a), truth, rel * truth) << a->reason << " " << a->evidence.dump();
  EXPECT_GE(a->confidence.value_or(0), 0.5);
}

const std::set<std::string> kConstant = {"constantL1", "constantL15"};

// Class 3: a random-replacement constant L1 keeps some lines of every footprint; the L1.5's size
// and latency come from the loads it did not serve.
TEST_P(Seeds, RandomConstantL1LeavesTheL15SizeAndLatency) {
  const auto t = constant_truth(device::sim::load_config("est-const-random"));
  ASSERT_TRUE(t.l1.random_replacement);
  const Result r = run("est-const-random", kConstant, GetParam());
  expect_near(r, "constantL15", "size", static_cast<double>(t.l15.size), 0.01);
  expect_near(r, "constantL15", "latency", t.l15.latency, 0.05);
  expect_near(r, "constantL1", "missPenalty", t.l15.latency - t.l1.latency, 0.05);
}

// Class 4: an L1.5 three times the constant L1; the L1's miss penalty is read where its misses
// are the L1.5's hits, and its geometry stands.
TEST_P(Seeds, SmallConstantL15KeepsTheL1MissPenalty) {
  const auto cfg = device::sim::load_config("est-const-small");
  const auto t = constant_truth(cfg);
  ASSERT_LT(t.l15.size, 4 * t.l1.size);
  const Result r = run("est-const-small", kConstant, GetParam());
  expect_near(r, "constantL1", "missPenalty", t.l15.latency - t.l1.latency, 0.05);
  expect_plain_geometry(r, "constantL1",
                        cfg.geometry(static_cast<std::size_t>(t.l1.cache_index), 0));
  expect_near(r, "constantL15", "size", static_cast<double>(t.l15.size), 0.01);
}

// Class 5: an L1.5 that fetches less than the L1's line; its chases keep a line of the L1 apart.
// Its line is then only bounded: sets and index, where given, stay under confidence 0.5.
TEST_P(Seeds, SmallL15FetchKeepsTheL15Size) {
  const auto cfg = device::sim::load_config("est-const-fetch");
  const auto t = constant_truth(cfg);
  ASSERT_LT(t.l15.fetch, t.l1.line);
  const Result r = run("est-const-fetch", kConstant, GetParam());
  expect_near(r, "constantL15", "size", static_cast<double>(t.l15.size), 0.01);
  expect_near(r, "constantL15", "latency", t.l15.latency, 0.05);
  const auto g = cfg.geometry(static_cast<std::size_t>(t.l15.cache_index), 0);
  expect_value(r, "constantL15", "associativity", g.ways);
  for (const char* key : {"sets", "indexFunction"}) {
    const auto* a = attr(r, "constantL15", key);
    ASSERT_NE(a, nullptr);
    if (a->available()) {
      EXPECT_LT(a->confidence.value_or(1), 0.5) << key;
    }
  }
  const auto* sets = attr(r, "constantL15", "sets");
  if (sets->available()) {
    EXPECT_EQ(number(sets), static_cast<double>(g.sets()));
  }
}

INSTANTIATE_TEST_SUITE_P(Estimators, Seeds, ::testing::Values(3u, 11u));

}  // namespace
}  // namespace gputopo::discovery
