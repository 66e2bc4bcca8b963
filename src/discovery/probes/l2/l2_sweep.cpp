#include "discovery/probes/l2/l2_sweep.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/summary.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_probes.hpp"

namespace gputopo::discovery {

SizeSearchSpec l2_search_spec(std::uint64_t api_l2_bytes, std::uint32_t stride) {
  SizeSearchSpec spec;
  spec.space = device::Space::L2;
  spec.stride = stride;
  spec.step = std::max<std::uint64_t>(stride, round_up(api_l2_bytes / 64, stride));
  spec.points_per_batch = 8;
  spec.max_recorded_loads = 2048;
  return spec;
}

device::ChaseRequest l2_chase(std::uint64_t bytes, std::uint32_t stride, std::uint32_t warmup,
                              std::uint32_t loads, int sm) {
  auto r = chase_request(device::Space::L2, bytes, stride, warmup, loads);
  r.recorded_loads = loads;
  r.sm = sm;
  return r;
}

StepProfile locate_step(const std::vector<double>& x, const std::vector<double>& share,
                        double near_latency, double noise, int sm) {
  StepProfile out;
  out.near_latency = near_latency;
  out.evidence = {
      {"sm", sm}, {"sizes", x}, {"shareAboveNear", share}, {"nearLatency", near_latency}};
  if (x.size() < 2 || share.size() != x.size()) return out;
  const double rise = *std::max_element(share.begin(), share.end()) - share.front();
  if (rise < std::max(0.05, 2 * noise)) {
    out.evidence["why"] = "the share above the near level does not rise across the profile";
    return out;
  }
  std::vector<double> g;
  for (double f : share) g.push_back((f - share.front()) / rise);
  std::size_t steep = 1;
  for (std::size_t i = 2; i < g.size(); ++i)
    if (g[i] - g[i - 1] > g[steep] - g[steep - 1]) steep = i;
  std::size_t lo = steep - 1;
  while (lo > 0 && g[lo] > 0.1) --lo;
  std::size_t hi = steep;
  while (hi + 1 < g.size() && g[hi] < 0.9) ++hi;
  const double slope = (g[steep] - g[steep - 1]) / (x[steep] - x[steep - 1]);
  out.onset = std::clamp(x[steep - 1] - g[steep - 1] / slope, x[lo], x[steep - 1]);
  out.lo = x[lo];
  out.hi = x[hi];
  out.found = true;
  out.evidence["stepBytes"] = out.onset;
  out.evidence["transition"] = {out.lo, out.hi};
  return out;
}

std::uint32_t l2_line_or_fetch(const Context& ctx, std::vector<std::string>& weaker) {
  const Input line = ctx.input("l2", "lineSize");
  if (line && *line.value >= 4) return static_cast<std::uint32_t>(*line.value);
  std::vector<std::string> fg_weaker;
  const std::uint32_t fg = fetch_granularity_or(ctx, l2_target(), 32, fg_weaker);
  weaker.push_back(line.why + "; stride " + std::to_string(fg) + " B (fetch granularity)");
  weaker.insert(weaker.end(), fg_weaker.begin(), fg_weaker.end());
  return fg;
}

}  // namespace gputopo::discovery
