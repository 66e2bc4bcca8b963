#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/requests.hpp"
#include "device/results.hpp"
#include "model/attribute.hpp"

// Per-load hit or miss at one cache: a reference chase in the same batch whose loads all hit the
// cache gives the per-load hit level; the chain latencies of the cache and of the level a miss
// goes to give the gap. The threshold lies halfway up the gap (per-load samples and chains differ
// by the timing overlap, which the gap cancels).
namespace gputopo::discovery {

// A chase of `lines` lines `stride` bytes apart, `passes` timed passes after one untimed-by-
// analysis first pass (cold misses): per-load timing, no warm-up, so every warp layout and every
// backend starts it the same way.
// The timed passes after the first of each capacity chase of the set-geometry search.
inline constexpr std::uint32_t kGeometryPasses = 8;

device::ChaseRequest passes_request(device::Space space, std::uint64_t lines, std::uint64_t stride,
                                    std::uint32_t passes);

struct HitClassifier {
  double hit_cycles = 0;
  double miss_cycles = 0;
  double threshold = 0;
  // The share of slow loads that chance may bring: an upper bound (the slow loads seen plus two
  // Poisson standard deviations of one more, plus one, over the loads) from the all-hit
  // reference and every chase since judged not to overflow (`learn`), not the share seen, which a
  // reference of a few hundred loads often reads as 0.
  double outlier_rate = 0;
  double slow_loads = 0;  // slow loads among the hits pooled so far
  double hit_loads = 0;   // loads pooled so far
  // Pools the loads after the first pass of a chase over `lines` lines judged not to overflow.
  void learn(const device::ChaseResult& r, std::uint64_t lines);
  bool miss(double cycles) const { return cycles > threshold; }
  model::Json evidence() const;
};

// From the hit reference and the gap in cycles; nullopt with `why` when the gap is too small for
// per-load samples to tell.
std::optional<HitClassifier> make_classifier(const device::ChaseResult& hits,
                                             std::uint64_t hit_lines, double gap_cycles,
                                             std::string& why);

// Whether a passes_request over `lines` lines overflowed the cache: after the first pass, for
// some k from 2 to the passes, more lines missed k times than chance at the reference's bound on
// slow loads (`outlier_rate`) makes (four standard deviations past its mean, at least two lines
// for k = 2 and one above). At one slow load in a hundred two lines of a few hundred miss twice
// by chance in most requests, but none misses in four passes of eight, while an overflowing set
// of an LRU or FIFO cache misses in every pass.
bool overflowed(const device::ChaseResult& r, std::uint64_t lines, const HitClassifier& c);

}  // namespace gputopo::discovery
