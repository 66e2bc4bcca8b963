#pragma once

#include <cstdint>
#include <vector>

#include "device/results.hpp"

// The latencies a chase result holds, read from its clock samples: what the context records as a
// sweep and what the measurement helpers (measure.hpp) summarise.
namespace gputopo::discovery {

// Per-load latencies of a chase result with the timing overhead subtracted. The clock reads
// overlap the load, so these classify loads (which level served each); they are not the latency.
std::vector<double> latencies(const device::ChaseResult& r);

// Cycles per load of each timed segment of a chain-timed result (its own clock reads, the
// result's overhead_cycles, taken off each segment).
std::vector<double> segment_latencies(const device::ChaseResult& r);
// Loads in each segment of a chain-timed result.
std::uint32_t segment_loads_of(const device::ChaseResult& r);

}  // namespace gputopo::discovery
