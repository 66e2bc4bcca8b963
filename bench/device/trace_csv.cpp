#include "trace_csv.hpp"

namespace gputopo::bench {

void write_trace_header(std::ostream& out) {
  out << "device,space,array_bytes,stride_bytes,pattern,warmup_passes,carveout_percent,sm,"
         "overhead_cycles,sm_clock_mhz,cycles\n";
}

void write_trace_rows(std::ostream& out, const std::string& device_name,
                      const device::ChaseBatch& batch, const device::ChaseBatchResult& result) {
  const auto& c = result.conditions;
  for (std::size_t i = 0; i < batch.requests.size(); ++i) {
    const auto& q = batch.requests[i];
    const auto& r = result.results[i];
    out << device_name << ',' << device::to_string(q.space) << ',' << q.array_bytes << ','
        << q.stride_bytes << ',' << (q.pattern == device::Pattern::Random ? "random" : "strided")
        << ',' << q.warmup_passes << ',';
    if (c.carveout_percent) out << *c.carveout_percent;
    out << ',' << r.sm << ',' << r.overhead_cycles << ',';
    if (c.sm_clock_mhz_after) out << *c.sm_clock_mhz_after;
    out << ',';
    for (std::size_t k = 0; k < r.cycles.size(); ++k) out << (k ? " " : "") << r.cycles[k];
    out << '\n';
  }
}

}  // namespace gputopo::bench
