#include "discovery/probes/compute/slope.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gputopo::discovery {

Slope item_slope(const device::ComputeBatchResult& r, std::size_t k, std::size_t items, int repeats,
                 std::uint32_t short_steps, std::uint32_t long_steps) {
  std::vector<double> s, l;
  for (int rep = 0; rep < repeats; ++rep) {
    const std::size_t at = (static_cast<std::size_t>(rep) * items + k) * 2;
    s.push_back(static_cast<double>(r.results.at(at).cycles.at(0)));
    l.push_back(static_cast<double>(r.results.at(at + 1).cycles.at(0)));
  }
  return cycles_per_step(s, l, short_steps, long_steps);
}

double agreement(double relative_range) {
  if (!std::isfinite(relative_range)) return 0;
  return std::clamp((0.10 - relative_range) / 0.09, 0.0, 1.0);
}

Slope cycles_per_step(const std::vector<double>& short_spans, const std::vector<double>& long_spans,
                      std::uint32_t short_steps, std::uint32_t long_steps) {
  if (short_spans.empty() || short_spans.size() != long_spans.size())
    throw std::invalid_argument("cycles_per_step: needs as many long spans as short ones");
  if (long_steps <= short_steps) throw std::invalid_argument("cycles_per_step: steps must grow");
  Slope s;
  const double steps = static_cast<double>(long_steps - short_steps);
  for (std::size_t i = 0; i < short_spans.size(); ++i)
    s.per_repeat.push_back((long_spans[i] - short_spans[i]) / steps);
  std::vector<double> sorted = s.per_repeat;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.value = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  std::size_t first = 0;
  std::size_t last = n - 1;
  if (n >= 5) {
    if (s.value - sorted.front() > sorted.back() - s.value)
      ++first;
    else
      --last;
  }
  s.lo = sorted[first];
  s.hi = sorted[last];
  s.confidence = s.value > 0 ? agreement((s.hi - s.lo) / s.value) : 0;
  return s;
}

}  // namespace gputopo::discovery
