#include "device/sim/l2_contention.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace gputopo::device::sim {

int slice_of(const L2Spec& l2, std::uint64_t address) {
  const std::uint64_t line = address / l2.geometry.line_bytes;
  int slice = 0;
  for (std::size_t bit = 0; bit < l2.slice_hash.size(); ++bit)
    slice |= (std::popcount(line & l2.slice_hash[bit]) & 1) << bit;
  return slice;
}

namespace {

// The rate at which a resource carrying `share` of the set's traffic reaches `capacity` (no bound
// where either is 0).
double bound(double capacity, double share) {
  return capacity > 0 && share > 0 ? capacity / share : std::numeric_limits<double>::infinity();
}

}  // namespace

double l2_read_rate_gbps(const SimConfig& config, const Topology& topology,
                         const std::vector<int>& sms,
                         const std::vector<std::uint64_t>& line_addresses) {
  if (sms.empty() || line_addresses.empty()) return 0;
  const auto n = static_cast<double>(sms.size());
  const BandwidthSpec& bw = config.bandwidth;
  const double sm_rate = bw.sm_l2_read_gbps > 0
                             ? bw.sm_l2_read_gbps
                             : bw.l2_read_gbps / static_cast<double>(config.device.sm_count);
  double rate = std::min(n * sm_rate, bw.l2_read_gbps);
  std::map<int, double> gpc_share;
  std::map<int, double> segment_share;
  for (const int sm : sms) {
    const auto s = static_cast<std::size_t>(sm);
    gpc_share[topology.gpc_of_sm.at(s)] += 1.0 / n;
    segment_share[config.l2.sm_segment.at(s)] += 1.0 / n;
  }
  std::map<int, double> line_share;  // by slice
  const double per_line = 1.0 / static_cast<double>(line_addresses.size());
  for (const std::uint64_t line : line_addresses) line_share[slice_of(config.l2, line)] += per_line;
  std::map<std::pair<int, int>, double> slice_share;  // (segment, slice)
  for (const auto& [segment, of_sms] : segment_share)
    for (const auto& [slice, of_lines] : line_share)
      slice_share[{segment, slice}] = of_sms * of_lines;
  for (const auto& [gpc, share] : gpc_share) rate = std::min(rate, bound(bw.gpc_port_gbps, share));
  for (const auto& [slice, share] : slice_share)
    rate = std::min(rate, bound(config.l2.slice_read_gbps, share));
  return rate;
}

double reduction_cycles(const SimConfig& config, int sm, std::uint64_t address) {
  const L2Spec& l2 = config.l2;
  const double at = (sm + 0.5) / config.device.sm_count;
  const double slice = (slice_of(l2, address) + 0.5) / std::max(l2.slices_per_segment, 1);
  return l2.near_latency_cycles + std::round(l2.slice_latency_cycles * std::abs(at - slice));
}

double reduction_seconds(const L2Spec& l2, const std::vector<std::uint64_t>& line_addresses,
                         double warps, std::uint32_t rounds) {
  if (l2.slice_reductions_per_ns <= 0) return 0;
  std::map<int, int> on_slice;
  int most = 0;
  for (const std::uint64_t line : line_addresses)
    most = std::max(most, ++on_slice[slice_of(l2, line)]);
  return most * warps * rounds / (l2.slice_reductions_per_ns * 1e9);
}

}  // namespace gputopo::device::sim
