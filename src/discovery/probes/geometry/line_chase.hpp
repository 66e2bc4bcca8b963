#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "device/requests.hpp"
#include "device/results.hpp"
#include "discovery/probes/geometry/hit_classifier.hpp"
#include "discovery/target.hpp"

// Chases of chosen lines, one cycle repeated: the random draws' and the all-miss count's.
namespace gputopo::discovery {

// Passes over the lines: the last is judged, after two that fill the cache.
inline constexpr std::uint64_t kLinePasses = 3;
inline constexpr std::uint64_t kLineElementBytes = 4;

// The lines (line numbers of a region of `region_lines` lines, the first 0, where the chase
// starts) in their order, every pass the same, each pass loading its own 4-byte element of each
// line.
device::ChaseRequest lines_request(const Target& target, std::uint64_t line_bytes,
                                   const std::vector<std::uint64_t>& lines,
                                   std::uint64_t region_lines);

// Shuffles every line but the first (where the chase starts) by Fisher-Yates on `rng`'s own
// outputs, so that every standard library makes the same requests (std::shuffle's order is the
// library's own) and a recording replays anywhere.
void shuffle_after_first(std::vector<std::uint64_t>& lines, std::mt19937_64& rng);

// The share of the `n` lines that missed in the last pass, or -1 where the result is short.
double last_pass_miss_share(const device::ChaseResult& r, std::uint64_t n, const HitClassifier& c);

}  // namespace gputopo::discovery
