#pragma once

#include <cstdint>
#include <vector>

#include "device/sim/config.hpp"
#include "device/sim/layout.hpp"

namespace gputopo::device::sim {

// The slice of its segment that holds the line at `address` (0 where a segment is one slice).
int slice_of(const L2Spec& l2, std::uint64_t address);

// The L2 read rate, in GB/s, of the SMs `sms` loading the lines at `line_addresses` in turn, all
// hits, each SM as fast as it can: every SM does an equal share of the work and spreads it evenly
// over the lines, so all finish together and the tightest bound sets the pace. The bounds: each
// SM's own rate, the whole L2's read rate, each GPC's port (shared by its SMs in the set), and
// each slice of each segment (shared by the set's SMs that load through that segment, for the
// lines it holds). Empty `sms` or `line_addresses` read at 0.
double l2_read_rate_gbps(const SimConfig& config, const Topology& topology,
                         const std::vector<int>& sms,
                         const std::vector<std::uint64_t>& line_addresses);

// Seconds for reductions from every SM (`warps` warps, `rounds` to each line a warp) to the lines
// at `line_addresses`: the slice holding the most of them sets the pace. 0 where the L2 models no
// reduction rate.
// The cycles of one reduction from SM `sm` to the line at `address`: the near L2 latency plus the
// slice's distance from the SM (slice_latency_cycles, as the chase engine's L2 hits).
double reduction_cycles(const SimConfig& config, int sm, std::uint64_t address);

double reduction_seconds(const L2Spec& l2, const std::vector<std::uint64_t>& line_addresses,
                         double warps, std::uint32_t rounds);

}  // namespace gputopo::device::sim
