#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "discovery/context.hpp"
#include "discovery/probes/geometry/hit_classifier.hpp"
#include "discovery/target.hpp"

// Ways and sets of a level-1 cache whose stride sweep cannot separate them (a hashed index), from
// the misses of random lines (docs/methods.md, "Random draws").
namespace gputopo::discovery {

struct DrawSite {
  const Target* target = nullptr;
  std::uint64_t line_bytes = 0;
  std::uint64_t capacity_lines = 0;
  std::uint64_t largest_bytes = 0;  // the largest array the space holds
  const HitClassifier* classifier = nullptr;
};

// Puts the target's associativity and sets: measured from random draws, or unavailable saying
// why, after `strides_why` (why the stride sweep could not separate them). Returns the ways and
// sets where it measured them.
struct DrawnGeometry {
  int ways = 0;
  double sets = 0;
};
std::optional<DrawnGeometry> put_drawn_ways_and_sets(Context& ctx, const DrawSite& site,
                                                     const std::string& strides_why);

}  // namespace gputopo::discovery
