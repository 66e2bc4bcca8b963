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

// Where the share of loads above the near level rises over array sizes `x` (ascending), on one SM
// (analysis::locate_step), with the profile as evidence.
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

// Where the profile's level before its step lies nearer the size search's level after the change
// it bracketed than before it, the profile found a later step (far -> DRAM: the bracket's points
// jumped over the far level, on an H200 from 31.5 MB at 290 cycles to 62.9 MB at 686 while the
// profile's level was 506): why, else "".
std::string later_step(const StepProfile& profile, const SizeSearchResult& r);

// The L2 segment as the readers of l2.segments size their arrays by: where l2.segmentCount is
// established, the aligned segment; where the step was measured but lies between two fractions of
// the API size (evidence.candidateCounts), the larger fraction, the most the segment can be.
// Otherwise not measured (`why`).
struct SegmentSpan {
  bool measured = false;     // the count is established or lies between two fractions
  bool established = false;  // the count is established
  double largest = 0;        // the largest segment the count allows
  int fewest = 0;            // the fewest segments the count allows
  std::string why;           // when not established: why
};
SegmentSpan segment_span(const Context& ctx);

// The L2 line size when established, else the fetch granularity (with the reason in `weaker`).
std::uint32_t l2_line_or_fetch(const Context& ctx, std::vector<std::string>& weaker);

}  // namespace gputopo::discovery
