#include "discovery/measure.hpp"

#include <algorithm>
#include <cmath>

namespace gputopo::discovery {

std::vector<double> latencies(const device::ChaseResult& r) {
  std::vector<double> out;
  out.reserve(r.cycles.size());
  for (std::uint32_t c : r.cycles) out.push_back(static_cast<double>(c) - r.overhead_cycles);
  return out;
}

std::vector<double> pooled_latencies(const device::ChaseBatchResult& b) {
  std::vector<double> out;
  for (const auto& r : b.results) {
    auto l = latencies(r);
    out.insert(out.end(), l.begin(), l.end());
  }
  return out;
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t multiple) {
  return multiple == 0 ? v : (v + multiple - 1) / multiple * multiple;
}

device::ChaseRequest chase_request(device::Space space, std::uint64_t bytes, std::uint32_t stride,
                                   std::uint32_t warmup, std::uint32_t max_loads,
                                   std::uint32_t min_loads) {
  device::ChaseRequest r;
  r.space = space;
  r.stride_bytes = stride;
  r.array_bytes = std::max<std::uint64_t>(bytes, stride);
  r.warmup_passes = warmup;
  const std::uint64_t elements = r.array_bytes / stride;
  r.recorded_loads = static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(elements, std::min(min_loads, max_loads), max_loads));
  return r;
}

device::ChaseRequest one_pass_request(device::Space space, std::uint64_t bytes,
                                      std::uint32_t stride, std::uint32_t max_loads) {
  auto r = chase_request(space, bytes, stride, 1, max_loads);
  r.recorded_loads =
      static_cast<std::uint32_t>(std::clamp<std::uint64_t>(r.array_bytes / stride, 1, max_loads));
  return r;
}

std::optional<int> carveout_for(const Context& ctx, const Target& t) {
  return t.carveout_applies ? ctx.options().carveout_percent : std::nullopt;
}

void record_carveout(Context& ctx, const Target& t, const device::RunConditions& c) {
  if (!t.carveout_applies) return;
  const auto requested = ctx.options().carveout_percent;
  model::Attribute a;
  a.unit = "%";
  a.source = model::Source::Api;
  a.method = "cudaFuncAttributePreferredSharedMemoryCarveout set for every batch of this element";
  if (c.carveout_percent) {
    a.value = *c.carveout_percent;
  } else if (requested) {
    a.value = *requested;
    a.reason = "the backend did not report the applied value; this is the requested one";
  } else {
    a.reason = "driver default (not set)";
  }
  a.evidence = {{"requested", requested ? model::Json(*requested) : model::Json("default")}};
  ctx.put(t.element, "carveout", std::move(a));
}

std::uint32_t fetch_granularity_or(const Context& ctx, const Target& t, std::uint32_t fallback,
                                   std::vector<std::string>& weaker) {
  const Input fg = ctx.input(t.element, "fetchGranularity");
  if (fg && *fg.value >= 1) return static_cast<std::uint32_t>(*fg.value);
  weaker.push_back(fg.why + "; used " + std::to_string(fallback) + " B steps instead");
  return fallback;
}

std::optional<std::string> gate(const Context& ctx, const Target& t) {
  if (const auto* cached = ctx.get(t.element, "globalLoadsCached");
      cached && cached->value.is_boolean() && !cached->value.get<bool>())
    return "global loads are not cached in L1 on this GPU (see globalLoadsCached)";
  return std::nullopt;
}

void put_latency(Context& ctx, const std::string& element, const std::string& key,
                 const std::vector<double>& sample, double overhead_cycles,
                 const device::RunConditions& conditions, const std::string& method,
                 double confidence, const std::string& reason) {
  if (sample.empty()) {
    ctx.put(element, key,
            model::Attribute::unavailable(model::Source::Measured, "cycles",
                                          reason.empty() ? "no samples" : reason));
    return;
  }
  const auto s = analysis::summarize(sample);
  auto stats = [&](double scale) {
    return model::Json{{"mean", s.mean * scale}, {"median", s.median * scale},
                       {"p95", s.p95 * scale},   {"stdev", s.stdev * scale},
                       {"min", s.min * scale},   {"max", s.max * scale},
                       {"samples", s.n},         {"overheadCycles", overhead_cycles}};
  };
  auto cycles = model::Attribute::measured(s.median, "cycles", method, confidence);
  cycles.evidence = stats(1.0);
  cycles.reason = reason;
  ctx.put(element, key, cycles);

  if (const auto ns = ctx.ns_per_cycle(conditions)) {
    auto a = model::Attribute::measured(s.median * *ns, "ns",
                                        method + ", " + Context::ns_method(conditions), confidence);
    a.evidence = stats(*ns);
    a.evidence["nsPerCycle"] = *ns;
    a.reason = reason;
    ctx.put(element, key + "Ns", a);
  } else {
    ctx.put(element, key + "Ns",
            model::Attribute::unavailable(model::Source::Measured, "ns",
                                          "no SM clock known to convert cycles to ns"));
  }
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace gputopo::discovery
