#pragma once

#include <cstdint>
#include <optional>

#include "discovery/context.hpp"
#include "discovery/probes/geometry/random_draws.hpp"

// The fewest consecutive lines whose chase misses on every line of its last pass: once every set
// holds more lines than its most ways. An index that spreads consecutive lines evenly (a modulo,
// or an XOR of higher bits into it over an aligned block) puts that at sets x (ways + 1), whatever
// ways a carve-out took from some sets: the set count where random draws, which such sets skew,
// read fewer (docs/methods.md, "Random draws").
namespace gputopo::discovery {

struct AllMissCount {
  std::uint64_t not_all = 0;  // the most lines seen with some hit
  std::uint64_t all = 0;      // the fewest seen missing entirely
};

// Searches a quarter either side of `guess` lines (two batches: a coarse sweep, then one inside
// its bracket) of a cache of `ways` ways; nullopt where no count there missed entirely, or none
// below it kept a set.
std::optional<AllMissCount> all_miss_count(Context& ctx, const DrawSite& site, int ways,
                                           std::uint64_t guess);

}  // namespace gputopo::discovery
