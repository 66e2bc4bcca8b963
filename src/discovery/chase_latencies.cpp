#include "discovery/chase_latencies.hpp"

#include "device/requests.hpp"

namespace gputopo::discovery {

std::vector<double> latencies(const device::ChaseResult& r) {
  std::vector<double> out;
  out.reserve(r.cycles.size());
  for (std::uint32_t c : r.cycles) out.push_back(static_cast<double>(c) - r.overhead_cycles);
  return out;
}

std::uint32_t segment_loads_of(const device::ChaseResult& r) {
  return r.segment_loads > 0 ? r.segment_loads : device::kChainSegmentLoads;
}

std::vector<double> segment_latencies(const device::ChaseResult& r) {
  std::vector<double> out;
  const double loads = segment_loads_of(r);
  for (std::uint32_t c : r.cycles)
    out.push_back((static_cast<double>(c) - r.overhead_cycles) / loads);
  return out;
}

}  // namespace gputopo::discovery
