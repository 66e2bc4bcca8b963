#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

// The latency of a chain whose translation misses recur every pass, among rare slow loads.
namespace gputopo::discovery {

struct RecurringMean {
  double cycles = 0;         // per load, over the segments kept
  std::size_t left_out = 0;  // high segments taken for slow loads
  std::size_t segments = 0;
};

// Cycles per load of a chain over `elements` (chased in address order, one load each) timed in
// `segments` of `segment_loads` loads each: the mean of every segment but the high ones (more than
// four robust standard deviations above the median: analysis::high_trimmed) whose loads are not
// high again in each pass within two before and after that the chain timed, and of those that
// are, as many as slow loads meeting by chance explain. A level that misses in a few of its sets
// misses on the same loads every pass, however few they are; a slow load does not recur. A chain
// of fewer elements than a segment's loads, or timed for less than two passes, leaves every high
// segment out.
RecurringMean recurring_mean(std::span<const double> segments, std::uint32_t segment_loads,
                             std::uint64_t elements);

}  // namespace gputopo::discovery
