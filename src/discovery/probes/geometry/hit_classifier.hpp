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
  double outlier_rate = 0;  // share of slow loads in the all-hit reference
  bool miss(double cycles) const { return cycles > threshold; }
  model::Json evidence() const;
};

// From the hit reference and the gap in cycles; nullopt with `why` when the gap is too small for
// per-load samples to tell.
std::optional<HitClassifier> make_classifier(const device::ChaseResult& hits,
                                             std::uint64_t hit_lines, double gap_cycles,
                                             std::string& why);

// Whether a passes_request over `lines` lines overflowed the cache: after the first pass, one line
// missed three times or two lines twice each, or more where the reference's share of slow loads
// (`outlier_rate`) makes that many by chance (four standard deviations past the lines chance alone
// makes miss so often). At one slow load in 10^4 a repeat on one line comes in 1 of about 10^4
// requests; at one in a hundred two lines of a few hundred miss twice by chance in most of them,
// while an overflowing set misses again and again.
bool overflowed(const device::ChaseResult& r, std::uint64_t lines, const HitClassifier& c);

}  // namespace gputopo::discovery
