#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/cluster.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/size_search.hpp"

// Pieces the L2 and device-memory probes share.
namespace gputopo::discovery {

// A size search on the L2 space: one request after another, few points per round, steps of
// 1/64 of the API L2 size (two rounds after the bracket locate a step to 1.6 % of the L2).
SizeSearchSpec l2_search_spec(std::uint64_t api_l2_bytes, std::uint32_t stride);

// A one-SM chase on the L2 space over `bytes` at `stride`, timed `loads` times.
device::ChaseRequest l2_chase(std::uint64_t bytes, std::uint32_t stride, std::uint32_t warmup,
                              std::uint32_t loads, int sm);

// Where the share of loads above the near level rises over array sizes `x` (ascending), on one SM:
// on a real L2 the near->far transition is gradual (a few far hits trickle in before the bulk), so
// the first far hit is not the step. The step is the onset of the bulk: the steepest rise between
// neighbouring sizes, extended back to the first size's share (on an LRU-like ramp, the ramp's
// start). The transition runs from the last size below a tenth of the whole rise to the first size
// at nine tenths of it. Not found where the share rises by less than max(0.05, 2 x `noise`).
struct StepProfile {
  bool found = false;
  double onset = 0;
  double lo = 0;
  double hi = 0;
  double near_latency = 0;
  model::Json evidence;
};
StepProfile locate_step(const std::vector<double>& x, const std::vector<double>& share,
                        double near_latency, double noise, int sm);

// The L2 line size when established, else the fetch granularity (with the reason in `weaker`).
std::uint32_t l2_line_or_fetch(const Context& ctx, std::vector<std::string>& weaker);

}  // namespace gputopo::discovery
