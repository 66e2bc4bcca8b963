#include "device/sim/cache.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <list>
#include <map>
#include <vector>

namespace gputopo::device::sim {
namespace {

// A deliberately naive cache written straight from the policy definitions: per set, a list of
// slots and explicit recency/insertion orders or an explicit PLRU tree. It shares nothing with the
// flat model except the random number generator, whose draws both make only when a full set must
// evict.
class ReferenceCache {
 public:
  ReferenceCache(const CacheGeometry& g, std::uint64_t seed)
      : g_(g), sets_(g.sets()), rng_(seed), slots_(sets_), order_(sets_), tree_(sets_) {
    for (auto& s : slots_) s.assign(g.ways, Slot{});
    for (auto& t : tree_) t.assign(g.ways, false);
  }

  bool access(std::uint64_t address) {
    const std::uint64_t line = address / g_.line_bytes;
    const std::uint64_t set = set_of(line);
    const unsigned sector = static_cast<unsigned>((address % g_.line_bytes) / g_.sector_bytes);
    const unsigned per_fetch = g_.fetch_bytes / g_.sector_bytes;
    const unsigned first = sector / per_fetch * per_fetch;
    auto& slots = slots_[set];
    for (unsigned w = 0; w < g_.ways; ++w) {
      if (!slots[w].valid || slots[w].line != line) continue;
      used(set, w, false);
      const bool hit = slots[w].sectors.count(sector) != 0;
      for (unsigned s = first; s < first + per_fetch; ++s) slots[w].sectors.insert(s);
      return hit;
    }
    std::map<unsigned, bool> sectors;
    Slot fresh{true, line, {}};
    for (unsigned s = first; s < first + per_fetch; ++s) fresh.sectors.insert(s);
    unsigned victim = g_.ways;
    for (unsigned w = 0; w < g_.ways && victim == g_.ways; ++w)
      if (!slots[w].valid) victim = w;
    if (victim == g_.ways) victim = choose(set);
    slots[victim] = fresh;
    used(set, victim, true);
    return false;
  }

  void remove(std::uint64_t line) {
    const std::uint64_t set = set_of(line);
    for (unsigned w = 0; w < g_.ways; ++w)
      if (slots_[set][w].valid && slots_[set][w].line == line) {
        slots_[set][w] = Slot{};
        order_[set].remove(w);
      }
  }

  std::multiset<std::pair<std::uint64_t, std::uint32_t>> contents() const {
    std::multiset<std::pair<std::uint64_t, std::uint32_t>> out;
    for (const auto& set : slots_)
      for (const auto& s : set)
        if (s.valid) {
          std::uint32_t mask = 0;
          for (unsigned b : s.sectors) mask |= 1u << b;
          out.insert({s.line, mask});
        }
    return out;
  }

 private:
  struct Slot {
    bool valid = false;
    std::uint64_t line = 0;
    std::set<unsigned> sectors;
  };

  std::uint64_t set_of(std::uint64_t line) const {
    std::uint64_t bits = 1;
    while ((std::uint64_t{1} << bits) < sets_) ++bits;
    std::uint64_t h = line;
    if (g_.hashed_index) h = line ^ (line >> bits) ^ (line >> (2 * bits));
    return h % sets_;
  }

  // LRU: order_ is least recent first. FIFO: order_ is oldest first and hits leave it alone.
  void used(std::uint64_t set, unsigned way, bool inserted) {
    auto& order = order_[set];
    if (g_.replacement == Replacement::Lru || inserted) {
      order.remove(way);
      order.push_back(way);
    }
    if (g_.replacement == Replacement::TreePlru) {
      // Walk from the root; each node on the path points to the half the way is NOT in.
      unsigned lo = 0, hi = g_.ways, node = 1;
      while (hi - lo > 1) {
        const unsigned mid = (lo + hi) / 2;
        const bool right = way >= mid;
        tree_[set][node] = !right;  // true: the victim lies to the right
        node = node * 2 + (right ? 1 : 0);
        (right ? lo : hi) = mid;
      }
    }
  }

  unsigned choose(std::uint64_t set) {
    switch (g_.replacement) {
      case Replacement::Lru:
      case Replacement::Fifo:
        return order_[set].front();
      case Replacement::Random:
        return static_cast<unsigned>(rng_.below(g_.ways));
      case Replacement::TreePlru: {
        unsigned lo = 0, hi = g_.ways, node = 1;
        while (hi - lo > 1) {
          const unsigned mid = (lo + hi) / 2;
          const bool right = tree_[set][node];
          node = node * 2 + (right ? 1 : 0);
          (right ? lo : hi) = mid;
        }
        return lo;
      }
    }
    return 0;
  }

  CacheGeometry g_;
  std::uint64_t sets_;
  Rng rng_;
  std::vector<std::vector<Slot>> slots_;
  std::vector<std::list<unsigned>> order_;
  std::vector<std::vector<bool>> tree_;
};

std::multiset<std::pair<std::uint64_t, std::uint32_t>> contents(const Cache& cache) {
  std::multiset<std::pair<std::uint64_t, std::uint32_t>> out;
  for (const auto& l : cache.contents()) out.insert({l.number, l.sectors});
  return out;
}

struct Case {
  std::uint64_t size;
  std::uint32_t line, sector, fetch, ways;
  bool hashed;
};

class CacheVersusReference : public ::testing::TestWithParam<Replacement> {};

TEST_P(CacheVersusReference, RandomStreamsGiveTheSameHitsAndContents) {
  const std::vector<Case> cases{
      {1024, 64, 64, 64, 1, false},   {4096, 128, 32, 32, 4, false},
      {4096, 128, 32, 64, 4, true},   {8192, 64, 16, 32, 8, false},
      {16384, 128, 32, 32, 16, true}, {6144, 64, 32, 32, 2, true},  // 48 sets: modulo index
      {2048, 32, 32, 32, 32, false},  {32768, 256, 32, 128, 8, true},
  };
  for (const Case& c : cases) {
    CacheGeometry g;
    g.size_bytes = c.size;
    g.line_bytes = c.line;
    g.sector_bytes = c.sector;
    g.fetch_bytes = c.fetch;
    g.ways = c.ways;
    g.replacement = GetParam();
    g.hashed_index = c.hashed;
    if (g.replacement == Replacement::TreePlru && !std::has_single_bit(g.ways)) continue;
    for (std::uint64_t seed : {1u, 7u, 99u}) {
      Cache cache(g, seed);
      ReferenceCache reference(g, seed);
      Rng stream(seed * 31 + c.size);
      // Addresses from a footprint a few times the cache, some clustered, some spread out.
      const std::uint64_t footprint = c.size * (1 + seed % 4);
      for (int i = 0; i < 20000; ++i) {
        const std::uint64_t address =
            stream.uniform() < 0.7 ? stream.below(footprint) : (stream.next() & 0xffffffffffULL);
        const std::string what =
            fmt::format("{} size {} ways {} hashed {} seed {} access {}", to_string(g.replacement),
                        c.size, c.ways, c.hashed, seed, i);
        ASSERT_EQ(cache.access(address), reference.access(address)) << what;
        if (i % 97 == 0) {  // the segmented L2 takes lines out of a cache; so do we
          const std::uint64_t line = cache.line_of(address);
          const auto slot = cache.find(line);
          ASSERT_NE(slot, Cache::kAbsent) << what;
          cache.remove(slot);
          reference.remove(line);
        }
      }
      ASSERT_EQ(contents(cache), reference.contents());
      cache.reset();
      EXPECT_TRUE(cache.contents().empty());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, CacheVersusReference,
                         ::testing::Values(Replacement::Lru, Replacement::Fifo, Replacement::Random,
                                           Replacement::TreePlru),
                         [](const auto& param_info) {
                           std::string name(to_string(param_info.param));
                           std::erase(name, '-');
                           return name;
                         });

TEST(Cache, LruKeepsExactlyItsCapacityUnderACyclicChase) {
  CacheGeometry g{8192, 128, 32, 32, 4, Replacement::Lru, false};
  Cache cache(g, 1);
  const auto misses = [&](std::uint64_t bytes) {
    cache.reset();
    for (std::uint64_t a = 0; a < bytes; a += 128) cache.access(a);
    int n = 0;
    for (std::uint64_t a = 0; a < bytes; a += 128) n += cache.access(a) ? 0 : 1;
    return n;
  };
  EXPECT_EQ(misses(8192), 0);
  EXPECT_EQ(misses(8192 + 128 * 16), static_cast<int>((8192 + 128 * 16) / 128));
}

TEST(Cache, ReplacementNamesRoundTrip) {
  for (auto r : {Replacement::Lru, Replacement::Fifo, Replacement::Random, Replacement::TreePlru})
    EXPECT_EQ(replacement_from_string(to_string(r)), r);
  EXPECT_FALSE(replacement_from_string("mru"));
}

TEST(Cache, IndexXorBitsFoldTheirGroupIntoTheSetIndex) {
  // 16 sets of 128 B lines (index bits 7-10); bits 13-16 XOR into them.
  CacheGeometry g{16 * 4 * 128, 128, 32, 32, 4, Replacement::Lru, false, {13}};
  Cache cache(g, 1);
  // Lines 8 KiB apart differ in bit 13 and up only: plain, they would share set 0 and 5 of them
  // would overflow 4 ways; XORed they spread over 16 sets.
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint64_t k = 0; k < 16; ++k) cache.access(k << 13);
  int misses = 0;
  for (std::uint64_t k = 0; k < 16; ++k) misses += cache.access(k << 13) ? 0 : 1;
  EXPECT_EQ(misses, 0);
  // 128 KiB apart: above bit 16, one set again.
  cache.reset();
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint64_t k = 0; k < 5; ++k) cache.access(k << 17);
  misses = 0;
  for (std::uint64_t k = 0; k < 5; ++k) misses += cache.access(k << 17) ? 0 : 1;
  EXPECT_EQ(misses, 5);
}

}  // namespace
}  // namespace gputopo::device::sim
