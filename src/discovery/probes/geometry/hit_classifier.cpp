#include "discovery/probes/geometry/hit_classifier.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/summary.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

// The loads after the first pass over `lines` lines, with the timing overhead removed.
std::vector<double> after_first_pass(const device::ChaseResult& r, std::uint64_t lines) {
  auto all = latencies(r);
  if (all.size() <= lines) return {};
  return {all.begin() + static_cast<std::ptrdiff_t>(lines), all.end()};
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

device::ChaseRequest passes_request(device::Space space, std::uint64_t lines, std::uint64_t stride,
                                    std::uint32_t passes) {
  device::ChaseRequest r;
  r.space = space;
  r.array_bytes = lines * stride;
  r.stride_bytes = static_cast<std::uint32_t>(stride);
  r.warmup_passes = 0;
  r.recorded_loads = static_cast<std::uint32_t>(lines * (passes + 1));
  return r;
}

model::Json HitClassifier::evidence() const {
  return {
      {"hitCycles", hit_cycles},     {"missCycles", miss_cycles},
      {"threshold", threshold},      {"slowHitShare", hit_loads > 0 ? slow_loads / hit_loads : 0.0},
      {"hitLoadsPooled", hit_loads}, {"slowHitShareBound", outlier_rate}};
}

std::optional<HitClassifier> make_classifier(const device::ChaseResult& hits,
                                             std::uint64_t hit_lines, double gap_cycles,
                                             std::string& why) {
  const auto h = after_first_pass(hits, hit_lines);
  if (h.empty()) {
    why = "the reference chase returned no timing";
    return std::nullopt;
  }
  HitClassifier c;
  c.hit_cycles = median_of(h);
  c.miss_cycles = c.hit_cycles + gap_cycles;
  // Apart by at least 8 cycles and a quarter of the hit latency: per-load samples jitter by a few.
  if (gap_cycles < std::max(8.0, 0.25 * c.hit_cycles)) {
    why = "a miss (" + std::to_string(gap_cycles) + " cycles more than a hit of " +
          std::to_string(c.hit_cycles) + ") is too close to a hit for per-load samples";
    return std::nullopt;
  }
  c.threshold = c.hit_cycles + gap_cycles / 2;
  c.learn(hits, hit_lines);
  return c;
}

void HitClassifier::learn(const device::ChaseResult& r, std::uint64_t lines) {
  const auto h = after_first_pass(r, lines);
  if (h.empty()) return;
  slow_loads +=
      static_cast<double>(std::count_if(h.begin(), h.end(), [&](double x) { return miss(x); }));
  hit_loads += static_cast<double>(h.size());
  outlier_rate = std::min(1.0, (slow_loads + 2 * std::sqrt(slow_loads + 1) + 1) / hit_loads);
}

namespace {

// Lines that chance alone (a share `rate` of slow loads, independent) makes miss at least `k`
// times in `passes` passes, and the count past which more is not chance: four standard deviations
// above that mean, at least `least`.
constexpr int kMostRepeats = 16;

std::uint32_t past_chance(std::uint64_t lines, double passes, double rate, int k,
                          std::uint32_t least) {
  double ways = 1;  // passes choose k
  for (int i = 0; i < k; ++i) ways *= (passes - i) / (i + 1);
  const double mean = static_cast<double>(lines) * ways * std::pow(rate, k);
  return std::max(least, static_cast<std::uint32_t>(std::ceil(mean + 4 * std::sqrt(mean))) + 1);
}

}  // namespace

bool overflowed(const device::ChaseResult& r, std::uint64_t lines, const HitClassifier& c) {
  const auto loads = after_first_pass(r, lines);
  if (loads.empty()) return true;
  const double passes = static_cast<double>(loads.size()) / static_cast<double>(lines);
  // For k = 2 .. the passes: the lines needed that missed k times; an overflowing LRU or FIFO set
  // misses in every pass, which chance at the bound's share of slow loads does not reach.
  const int most = std::min(static_cast<int>(passes), kMostRepeats);
  std::vector<std::uint32_t> need(static_cast<std::size_t>(most) + 1, 0);
  for (int k = 2; k <= most; ++k)
    need[static_cast<std::size_t>(k)] =
        past_chance(lines, passes, c.outlier_rate, k, k == 2 ? 2 : 1);
  std::vector<std::uint32_t> per_line(lines, 0);
  std::vector<std::uint32_t> reached(need.size(), 0);
  for (std::size_t i = 0; i < loads.size(); ++i) {
    if (!c.miss(loads[i])) continue;
    const std::uint32_t n = ++per_line[i % lines];
    if (n >= 2 && n <= static_cast<std::uint32_t>(most) && ++reached[n] >= need[n]) return true;
  }
  return false;
}

}  // namespace gputopo::discovery
