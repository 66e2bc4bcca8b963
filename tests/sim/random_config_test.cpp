// Random but valid configurations: the simulator must load each, answer every kind of request
// without crashing, and keep its basic promises (a small array is never slower than a huge one).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "device/sim/config.hpp"
#include "device/sim/presets.hpp"
#include "device/sim/rng.hpp"
#include "device/sim/sim_device.hpp"
#include "sim_test_util.hpp"

namespace gputopo::device::sim {
namespace {
using model::Json;

Json random_cache(Rng& rng) {
  const char* policies[] = {"lru", "fifo", "random", "tree-plru"};
  const std::uint32_t line = 16u << rng.below(4);      // 16..128
  const std::uint32_t sector = line >> rng.below(3);   // line/4..line
  const std::uint32_t fetch = sector << rng.below(2);  // sector or 2 sectors
  const std::uint32_t ways = 1u << rng.below(4);       // 1..8, powers of two for tree-plru
  const std::uint64_t sets = 1 + rng.below(48);        // any count, not only powers of two
  return Json{{"size_bytes", line * ways * sets},
              {"ways", ways},
              {"line_bytes", line},
              {"sector_bytes", sector},
              {"fetch_bytes", std::min(fetch, line)},
              {"replacement", policies[rng.below(4)]},
              {"hashed_index", rng.below(2) == 1},
              {"latency_cycles", 10 + rng.below(100)},
              {"jitter_cycles", rng.uniform() * 3},
              {"instances_per_sm", 1 + rng.below(3)},
              {"instance_select", rng.below(2) ? "modulo" : "contiguous"}};
}

Json random_config(std::uint64_t seed) {
  Rng rng(seed);
  Json cfg;
  for (const auto& [name, text] : embedded_presets())
    if (name == "toy") cfg = Json::parse(text);
  cfg["name"] = fmt::format("random-{}", seed);
  cfg["caches"] = Json::object();
  const int caches = 1 + static_cast<int>(rng.below(4));
  for (int c = 0; c < caches; ++c) cfg["caches"][fmt::format("c{}", c)] = random_cache(rng);
  for (const char* space : {"l1", "readOnly", "texture", "constant"}) {
    Json path = Json::array();
    for (int c = 0; c < caches; ++c)
      if (rng.below(2)) path.push_back(fmt::format("c{}", c));
    cfg["spaces"][space]["path"] = path;
  }
  const int segments = 1 + static_cast<int>(rng.below(4));
  const std::uint32_t line = 32u << rng.below(3);
  const std::uint64_t ways = 2 + rng.below(15);
  const std::uint64_t sets = 64 + rng.below(300);
  cfg["l2"]["segments"] = segments;
  cfg["l2"]["line_bytes"] = line;
  cfg["l2"]["sector_bytes"] = 32;
  cfg["l2"]["fetch_bytes"] = std::min(32u << rng.below(2), line);
  cfg["l2"]["ways"] = ways;
  cfg["l2"]["size_bytes"] = line * ways * sets * static_cast<unsigned>(segments);
  cfg["l2"]["replacement"] = rng.below(2) ? "lru" : "fifo";
  cfg["l2"]["hashed_index"] = rng.below(2) == 1;
  return cfg;
}

TEST(SimRandomConfigs, LoadAndAnswerEveryRequest) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Json json = random_config(seed);
    SCOPED_TRACE(json.dump());
    SimConfig cfg;
    try {
      cfg = parse_config(json.dump(), "random.json");
    } catch (const Error& e) {
      FAIL() << e.what();
    }
    const auto device = make_device(cfg, seed);
    const std::uint64_t l2 = cfg.l2_bytes();
    for (Space space :
         {Space::L1, Space::L2, Space::ReadOnly, Space::Texture, Space::Constant, Space::Shared}) {
      const std::uint64_t big = space == Space::Constant ? 64 * 1024
                                : space == Space::Shared ? 8 * 1024
                                                         : 4 * l2;
      ChaseBatch batch;
      batch.requests.push_back(test::chase_request(space, 256, 64, 300));
      batch.requests.push_back(test::chase_request(space, big, 64, 300));
      batch.requests[1].pattern = Pattern::Random;
      batch.requests[1].record_indices = true;
      const auto out = device->chase(batch);
      ASSERT_EQ(out.results.size(), 2u);
      for (const auto& r : out.results) {
        ASSERT_EQ(r.cycles.size(), 300u);
        for (auto c : r.cycles) ASSERT_GE(c + cfg.overlap_cycles, r.overhead_cycles + 1);
      }
      EXPECT_EQ(out.results[1].indices.size(), 300u);
      EXPECT_LE(test::median(out.results[0].cycles), test::median(out.results[1].cycles) + 10)
          << to_string(space);
    }
    InterferenceBatch interference;
    InterferenceRequest r;
    r.a = test::chase_request(Space::L1, 4096, 32, 100);
    r.b = test::chase_request(Space::Texture, 4096, 32, 0);
    r.placement = InterferenceRequest::Placement::TwoThreads;
    r.thread_b = 32 * static_cast<std::uint32_t>(seed % 8);
    interference.requests.push_back(r);
    EXPECT_EQ(device->interfere(interference).results.at(0).cycles.size(), 100u);
    EXPECT_EQ(device->stream({StreamKind::Copy, 3 * l2, 2, {}}).gbps.size(), 2u);
    EXPECT_FALSE(device->co_resident_sms(1).empty());
  }
}

}  // namespace
}  // namespace gputopo::device::sim
