#include "discovery/probes/geometry/line_chase.hpp"

#include <utility>

#include "discovery/chase_latencies.hpp"

namespace gputopo::discovery {

device::ChaseRequest lines_request(const Target& target, std::uint64_t line_bytes,
                                   const std::vector<std::uint64_t>& lines,
                                   std::uint64_t region_lines) {
  const std::uint64_t per_line = line_bytes / kLineElementBytes;
  device::ChaseRequest r;
  r.space = target.space;
  r.array_bytes = region_lines * line_bytes;
  r.stride_bytes = static_cast<std::uint32_t>(kLineElementBytes);
  r.warmup_passes = 0;
  r.pattern = device::Pattern::Sequence;
  for (std::uint64_t p = 0; p < kLinePasses; ++p)
    for (const std::uint64_t l : lines) r.sequence.push_back(l * per_line + p);
  r.recorded_loads = static_cast<std::uint32_t>(r.sequence.size());
  return r;
}

void shuffle_after_first(std::vector<std::uint64_t>& lines, std::mt19937_64& rng) {
  for (std::size_t i = lines.size(); i-- > 2;) std::swap(lines[i], lines[1 + rng() % i]);
}

double last_pass_miss_share(const device::ChaseResult& r, std::uint64_t n, const HitClassifier& c) {
  const auto lat = latencies(r);
  if (n == 0 || lat.size() < kLinePasses * n) return -1;
  double missed = 0;
  for (std::size_t j = (kLinePasses - 1) * n; j < kLinePasses * n; ++j)
    missed += c.miss(lat[j]) ? 1 : 0;
  return missed / static_cast<double>(n);
}

}  // namespace gputopo::discovery
