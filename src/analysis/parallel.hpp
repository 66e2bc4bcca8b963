#pragma once

#include <cstddef>
#include <functional>

namespace gputopo::analysis {

// Calls `each(i)` once for every i in [0, n), on the calling thread and, where n reaches
// `least_for_threads`, up to kMaxThreads - 1 more (never more than the hardware has). Items are
// handed out one at a time, so `each` must write only what belongs to its i; what it computes
// does not depend on the threads. A discovery's host analysis of a sweep (one item a point or a
// knot placement group) runs on an H200 host's 16 cores rather than on one.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& each,
                  std::size_t least_for_threads = 32);

inline constexpr std::size_t kMaxThreads = 8;

}  // namespace gputopo::analysis
