#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"
#include "result_access.hpp"
#include "sim_truth.hpp"

// End to end: the set-geometry probes (--depth full) on every simulator preset, against the
// configuration. Ways, sets, index function and replacement policy must match exactly where the
// configuration lets them be separated, and be "not established" where it does not.
namespace gputopo::discovery {
namespace {

using device::sim::CacheGeometry;
using device::sim::Replacement;
using testing::attr;

// The set of a line under the simulator's index: the plain index XOR the configured groups.
std::uint64_t set_of(const CacheGeometry& g, std::uint64_t line) {
  const std::uint64_t sets = g.sets();
  const int set_bits = std::max(1, static_cast<int>(std::bit_width(sets - 1)));
  const int line_bit = std::countr_zero(g.line_bytes);
  std::uint64_t h = line;
  if (g.hashed_index) h ^= (line >> set_bits) ^ (line >> (2 * set_bits));
  for (const auto bit : g.index_xor_bits) h ^= line >> (static_cast<int>(bit) - line_bit);
  return h % sets;
}

// Distinct sets that lines 2^bit bytes apart fall into.
std::uint64_t sets_at_stride(const CacheGeometry& g, int bit) {
  std::set<std::uint64_t> seen;
  const int line_bit = std::countr_zero(g.line_bytes);
  for (std::uint64_t k = 0; k < (1u << 14); ++k) seen.insert(set_of(g, (k << bit) >> line_bit));
  return seen.size();
}

struct Expected {
  bool separable = false;  // ways and sets reported
  std::string index;       // the exact indexFunction, or a prefix for a hash without a plateau
  bool index_exact = true;
  std::string policy;  // "" when the policy is not established
};

Expected expected(const CacheGeometry& g, bool level_one, int largest_bit) {
  Expected e;
  const int line_bit = std::countr_zero(g.line_bytes);
  const bool hashed = g.hashed_index || !g.index_xor_bits.empty();
  std::vector<int> halving;
  std::uint64_t last = sets_at_stride(g, line_bit);
  for (int bit = line_bit + 1; bit <= largest_bit; ++bit) {
    const auto now = sets_at_stride(g, bit);
    if (now * 2 == last) halving.push_back(bit - 1);
    last = now;
  }
  // The probe needs two strides with every line in one set.
  const bool level = sets_at_stride(g, largest_bit) == 1 && sets_at_stride(g, largest_bit - 1) == 1;
  if (!hashed) {
    e.separable = true;
    if (std::has_single_bit(g.sets()))
      e.index = "modulo: address bits " + std::to_string(line_bit) + "-" +
                std::to_string(line_bit + std::countr_zero(g.sets()) - 1);
    else
      e.index = "modulo " + std::to_string(g.sets()) + " of the line address (from bit " +
                std::to_string(line_bit) + ")";
  } else {
    e.separable = level;
    e.index = "hashed";
    if (level && !halving.empty()) {
      e.index += ": bits";
      for (const int b : halving) e.index += " " + std::to_string(b);
      e.index += " take part (XOR with lower bits)";
    } else {
      e.index_exact = false;
    }
  }
  if (e.separable && level_one && g.ways >= 2) {
    switch (g.replacement) {
      case Replacement::Lru:
        e.policy = "LRU";
        break;
      case Replacement::Fifo:
        e.policy = "FIFO";
        break;
      case Replacement::TreePlru:
        e.policy = g.ways == 2 ? "LRU" : "tree-PLRU";
        break;
      case Replacement::Random:
        e.policy = "random";
        break;
    }
  }
  return e;
}

// The largest stride the probe tests with an exact capacity: a few bits past the cache's lines,
// while a set's lines plus one fit the largest array.
int top_bit(const CacheGeometry& g, std::uint64_t largest) {
  const int line_bit = std::countr_zero(g.line_bytes);
  const int by_lines = line_bit + static_cast<int>(std::bit_width(g.size_bytes / g.line_bytes)) + 4;
  const int by_array = static_cast<int>(std::bit_width(largest / (g.ways + 1))) - 1;
  return std::min(by_lines, by_array);
}

class GeometrySim : public ::testing::TestWithParam<std::string> {};

void check(const Result& r, const std::string& element, const CacheGeometry& g, bool level_one,
           int largest_bit, bool plateau_reached = true) {
  SCOPED_TRACE(element);
  Expected e = expected(g, level_one, largest_bit);
  e.separable = e.separable && plateau_reached;
  const auto* index = attr(r, element, "indexFunction");
  ASSERT_NE(index, nullptr);
  ASSERT_TRUE(index->available()) << index->reason;
  if (e.index_exact)
    EXPECT_EQ(index->value.get<std::string>(), e.index);
  else
    EXPECT_EQ(index->value.get<std::string>().rfind(e.index, 0), 0u) << index->value;
  const auto* ways = attr(r, element, "associativity");
  const auto* sets = attr(r, element, "sets");
  ASSERT_NE(ways, nullptr);
  ASSERT_NE(sets, nullptr);
  if (e.separable) {
    EXPECT_EQ(testing::number(ways), g.ways) << ways->reason;
    EXPECT_EQ(testing::number(sets), static_cast<double>(g.sets())) << sets->reason;
  } else if (ways->available()) {
    // Random draws where the strides cannot separate them: the ways, and sets within the interval.
    EXPECT_NE(ways->method.find("random lines"), std::string::npos) << ways->method;
    EXPECT_EQ(testing::number(ways), g.ways);
    ASSERT_TRUE(sets->interval.has_value());
    EXPECT_LE(sets->interval->lo, static_cast<double>(g.sets()));
    EXPECT_GE(sets->interval->hi, static_cast<double>(g.sets()));
  } else {
    EXPECT_NE(ways->reason.find("cannot be separated"), std::string::npos) << ways->reason;
  }
  const auto* policy = attr(r, element, "replacementPolicy");
  ASSERT_NE(policy, nullptr);
  if (e.policy.empty())
    EXPECT_FALSE(policy->available()) << policy->value;
  else
    EXPECT_EQ(policy->value, e.policy) << policy->reason << " " << policy->evidence.dump();
}

// Lines a plain-indexed cache keeps at a power-of-two stride.
std::uint64_t lines_at(const CacheGeometry& g, std::uint64_t stride) {
  const std::uint64_t per_line = std::max<std::uint64_t>(1, g.line_bytes / stride);
  const std::uint64_t sets =
      std::max<std::uint64_t>(1, g.sets() / std::max<std::uint64_t>(1, stride / g.line_bytes));
  return g.ways * sets * per_line;
}

// A cache behind another (the constant L1.5): where, at a stride whose count the space does not
// bound, the level in front keeps as many lines, the probe says so; elsewhere the geometry as for
// a first level, its ways separable where two strides at or past the set span fit the space.
void check_behind(const Result& r, const std::string& element, const CacheGeometry& g,
                  const CacheGeometry& front, std::uint64_t largest) {
  SCOPED_TRACE(element);
  const auto* index = attr(r, element, "indexFunction");
  ASSERT_NE(index, nullptr);
  if (largest < 2 * g.size_bytes) {
    EXPECT_FALSE(index->available());
    EXPECT_NE(index->reason.find("cannot hold an array past"), std::string::npos) << index->reason;
    return;
  }
  const int line_bit = std::countr_zero(g.line_bytes);
  const int top = top_bit(g, largest);
  bool shadowed = false;
  for (int bit = line_bit; bit <= top; ++bit) {
    const std::uint64_t stride = std::uint64_t{1} << bit;
    const std::uint64_t kept = lines_at(g, stride);
    if (kept < largest / stride && kept <= lines_at(front, stride)) shadowed = true;
  }
  if (shadowed) {
    EXPECT_FALSE(index->available());
    EXPECT_NE(index->reason.find("level in front"), std::string::npos) << index->reason;
    return;
  }
  const int span_bit = std::countr_zero(g.sets() * g.line_bytes);
  check(r, element, g, false, top, top - 1 >= span_bit);
}

// Stores then loads: the L1's write-allocate exactly; its write policy and the L2's
// write-allocate where the stores reach the L2 (a write-back L1 that allocates keeps them).
void check_stores(const Result& r, const device::sim::SimConfig& cfg) {
  const auto& path = cfg.space(device::Space::L1).path;
  if (path.empty()) return;
  const auto& l1 = cfg.caches[static_cast<std::size_t>(path.front())].geometry;
  const auto* allocate = attr(r, "l1", "writeAllocate");
  ASSERT_NE(allocate, nullptr);
  ASSERT_TRUE(allocate->available()) << allocate->reason;
  EXPECT_EQ(allocate->value, l1.write_allocate);
  const bool reach_l2 = !(l1.write_back && l1.write_allocate);
  const bool l2_allocates = reach_l2 && cfg.l2.geometry.write_allocate;
  // An L1 measured not to allocate passed every store on: the L2's answer is then known.
  const bool l2_known = l2_allocates || !l1.write_allocate;
  const auto* l2_allocate = attr(r, "l2", "writeAllocate");
  ASSERT_NE(l2_allocate, nullptr);
  EXPECT_EQ(l2_allocate->available(), l2_known) << l2_allocate->reason;
  if (l2_known) {
    EXPECT_EQ(l2_allocate->value, cfg.l2.geometry.write_allocate);
  }
  const auto* policy = attr(r, "l1", "writePolicy");
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->available(), l2_allocates) << policy->reason;
  if (l2_allocates) {
    EXPECT_EQ(policy->value, "write-through");
  }
}

TEST_P(GeometrySim, EveryCacheMatchesItsConfiguration) {
  auto cfg = device::sim::load_config(GetParam());
  // The memory-side cache is not under test here, but the L2's latency, which the L2's geometry
  // needs, is measured past it: an eighth of it keeps the test quick.
  if (cfg.mall) cfg.mall->geometry.size_bytes /= 8;
  auto dev = device::sim::make_device(cfg, 7);
  NullProgress progress;
  Options o;
  o.depth = Depth::Full;
  // The caches of the preset's vendor (AMD: l1, scalarL1) and the L2.
  o.only = testing::l1_family_elements(cfg);
  o.only.erase(testing::shared_element(cfg));
  o.only.insert("l2");
  const Result r = discover(*dev, o, progress, nullptr);
  ASSERT_TRUE(r.completed);
  for (const auto& t : testing::l1_family_truth(cfg, 0)) {
    if (!t.exists) continue;
    const auto g = cfg.geometry(static_cast<std::size_t>(t.cache_index), 0);
    if (t.size_capped) {
      const auto* ways = attr(r, t.element, "associativity");
      ASSERT_NE(ways, nullptr);
      EXPECT_FALSE(ways->available());
      continue;
    }
    const std::uint64_t memory = cfg.device.global_memory_bytes;
    const std::uint64_t largest =
        t.element.rfind("constant", 0) == 0 || t.element == "scalarL1"
            ? cfg.device.constant_bytes
            : std::min<std::uint64_t>(
                  std::clamp<std::uint64_t>(512 * g.size_bytes, 64u << 20, 1u << 30), memory / 32);
    if (t.level > 1) {
      check_behind(r, t.element, g, cfg.geometry(static_cast<std::size_t>(t.inner_index), 0),
                   largest);
      continue;
    }
    check(r, t.element, g, true, top_bit(g, largest));
  }
  const auto& l2 = cfg.l2.geometry;
  const std::uint64_t largest =
      std::min<std::uint64_t>(std::clamp<std::uint64_t>(512 * l2.size_bytes, 64u << 20, 1u << 30),
                              cfg.device.global_memory_bytes / 32);
  check(r, "l2", l2, true, top_bit(l2, largest));

  // Write-back where the L2 takes stores faster than device memory by the probe's margin.
  const auto* write = attr(r, "l2", "writePolicy");
  ASSERT_NE(write, nullptr);
  const double ratio = cfg.bandwidth.l2_write_gbps / cfg.bandwidth.dram_write_gbps;
  if (cfg.l2.write_back && ratio > 1.25) {
    EXPECT_EQ(write->value, "write-back") << write->reason;
  } else if (!cfg.l2.write_back || ratio < 1.05) {
    EXPECT_FALSE(write->available()) << write->value;
  }
  check_stores(r, cfg);
  // One index function for every segment (the simulator's segments share one geometry).
  const auto* alike = attr(r, "l2", "segmentsHashAlike");
  if (cfg.device.vendor == "NVIDIA") {
    ASSERT_NE(alike, nullptr);
    EXPECT_EQ(alike->available(), cfg.l2.segments > 1) << alike->reason;
    if (cfg.l2.segments > 1) {
      EXPECT_EQ(alike->value, true);
    }
  }
}

// The h200 preset's L1 as Hopper's seems (docs/results/h200/l1-geometry): 4 ways of 512 sets of
// 128 B lines, an index that XORs every address bit up to 2^33 in, so that no power-of-two stride
// loses capacity. The strides cannot separate ways and sets; random draws give the ways, and the
// fewest consecutive lines that all miss (5 a set) the sets. With 256 sets of 7 ways, 6 and 7
// ways fit the draws alike, and neither is claimed.
device::sim::SimConfig hopper_like_l1(int sets, std::uint64_t total_bytes) {
  return testing::preset_changed("h200", [&](nlohmann::json& j) {
    j["caches"]["l1"]["sets"] = sets;
    j["caches"]["l1"]["index_xor_bits"] = {7 + std::countr_zero(static_cast<unsigned>(sets)),
                                           16 + std::countr_zero(static_cast<unsigned>(sets))};
    auto& u = j["unified_l1_shared"];
    u["total_bytes"] = total_bytes;
    u["carveout_shared_bytes"] = nlohmann::json::array({{0, 8192}, {25, 102400}, {100, 131072}});
    u["default_carveout_percent"] = 25;
  });
}

TEST(GeometryHashedL1, RandomDrawsSeparateWaysAndSetsWhereNoStrideDoes) {
  const Result r = testing::discover_config(hopper_like_l1(512, 270336), {"l1"}, 3, Depth::Full);
  const auto* index = attr(r, "l1", "indexFunction");
  ASSERT_TRUE(index && index->available()) << (index ? index->reason : "");
  const auto text = index->value.get<std::string>();
  EXPECT_EQ(text.rfind("hashed: ", 0), 0u) << text;
  EXPECT_NE(text.find("where a modulo of 512 sets keeps 4"), std::string::npos) << text;
  const auto* ways = attr(r, "l1", "associativity");
  ASSERT_TRUE(ways && ways->available()) << (ways ? ways->reason : "");
  EXPECT_EQ(ways->value, 4);
  EXPECT_GE(ways->confidence.value_or(0), 0.5);
  const auto* sets = attr(r, "l1", "sets");
  ASSERT_TRUE(sets && sets->interval.has_value());
  EXPECT_EQ(sets->value, 512);
  EXPECT_LE(sets->interval->lo, 512);
  EXPECT_GE(sets->interval->hi, 512);
  EXPECT_LE(sets->interval->hi - sets->interval->lo, 2);
  EXPECT_NE(sets->method.find("consecutive lines"), std::string::npos) << sets->method;

  const Result many = testing::discover_config(hopper_like_l1(256, 262144), {"l1"}, 3, Depth::Full);
  const auto* not_separated = attr(many, "l1", "associativity");
  ASSERT_NE(not_separated, nullptr);
  EXPECT_FALSE(not_separated->available());
  EXPECT_NE(not_separated->reason.find("fit alike"), std::string::npos) << not_separated->reason;
}

INSTANTIATE_TEST_SUITE_P(Presets, GeometrySim, ::testing::ValuesIn(device::sim::preset_names()),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace gputopo::discovery
