#include "discovery/probes/l2/l2_sweep.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/step.hpp"
#include "analysis/summary.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {

SizeSearchSpec l2_search_spec(std::uint64_t api_l2_bytes, std::uint32_t stride) {
  SizeSearchSpec spec;
  spec.space = device::Space::L2;
  spec.stride = stride;
  spec.step = std::max<std::uint64_t>(stride, round_up(api_l2_bytes / 64, stride));
  spec.points_per_batch = 32;
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
  const analysis::Step step = analysis::locate_step(x, share, noise);
  if (!step.found) {
    out.evidence["why"] = "the share above the near level does not rise across the profile";
    return out;
  }
  out.onset = step.onset;
  out.lo = step.lo;
  out.hi = step.hi;
  out.found = true;
  out.evidence["stepBytes"] = out.onset;
  out.evidence["transition"] = {out.lo, out.hi};
  return out;
}

std::string later_step(const StepProfile& profile, const SizeSearchResult& r) {
  if (!profile.found || !r.evidence.contains("transition")) return {};
  const auto& t = r.evidence["transition"];
  const double before = t.value("latencyBefore", 0.0);
  const double after = t.value("latencyAfter", 0.0);
  if (before <= 0 || after <= before || profile.near_latency <= (before + after) / 2) return {};
  return "the profiled step starts at " + std::to_string(std::lround(profile.near_latency)) +
         " cycles, nearer the search's level after its change (" +
         std::to_string(std::lround(after)) + ") than before it (" +
         std::to_string(std::lround(before)) + "): a later step, not the near one";
}

SegmentSpan segment_span(const Context& ctx) {
  SegmentSpan s;
  const Input count = ctx.input("l2", keys::segmentCount);
  const Input size = ctx.input("l2", keys::segmentSize);
  const model::Attribute* a = ctx.get("l2", keys::segmentSize);
  s.why = !count ? count.why : size.why;
  if (!count.value || !size.value || !a || !a->interval) return s;
  s.established = count && size;
  const auto counts = a->evidence.value("candidateCounts", std::vector<int>{});
  s.measured = s.established || counts.size() == 2;
  if (!s.measured) return s;
  s.largest = s.established ? *size.value : std::max(*size.value, a->interval->hi);
  s.fewest = s.established ? static_cast<int>(*count.value) : counts.front();
  return s;
}

std::uint32_t l2_line_or_fetch(const Context& ctx, std::vector<std::string>& weaker) {
  const Input line = ctx.input("l2", keys::lineSize);
  if (line && *line.value >= 4) return static_cast<std::uint32_t>(*line.value);
  std::vector<std::string> fg_weaker;
  const std::uint32_t fg = fetch_granularity_or(ctx, l2_target(), 32, fg_weaker);
  weaker.push_back(line.why + "; stride " + std::to_string(fg) + " B (fetch granularity)");
  weaker.insert(weaker.end(), fg_weaker.begin(), fg_weaker.end());
  return fg;
}

}  // namespace gputopo::discovery
