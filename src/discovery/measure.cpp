#include "discovery/measure.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/clean_level.hpp"
#include "analysis/cluster.hpp"

namespace gputopo::discovery {

int placed_sm(int placement, std::size_t index, int sm_count) {
  if (placement != kSmsInTurn) return placement;
  return sm_count > 0 ? static_cast<int>(index % static_cast<std::size_t>(sm_count)) : -1;
}

model::Json placement_json(int placement) {
  return placement == kSmsInTurn ? model::Json("each in turn") : model::Json(placement);
}

device::ChaseRequest chain_request(device::Space space, std::uint64_t bytes, std::uint32_t stride,
                                   std::uint32_t warmup, std::uint32_t loads) {
  device::ChaseRequest r;
  r.space = space;
  r.stride_bytes = stride;
  r.array_bytes = std::max<std::uint64_t>(bytes, stride);
  r.warmup_passes = warmup;
  r.timing = device::Timing::Chain;
  r.segment_loads = kSegmentLoads;
  r.recorded_loads = static_cast<std::uint32_t>(
      round_up(std::max<std::uint32_t>(loads, 1), device::kChainSegmentLoads));
  return r;
}

SegmentLevel segment_level(std::span<const device::ChaseResult> results) {
  std::vector<double> pooled;
  double loads = 0;
  for (const auto& r : results) {
    const auto s = segment_latencies(r);
    pooled.insert(pooled.end(), s.begin(), s.end());
    loads = segment_loads_of(r);
  }
  const auto clean = analysis::clean_level(pooled);
  return {clean.level, clean.sd * std::sqrt(loads), clean.outlier_share, clean.n, clean.sd,
          clean.clean};
}

namespace {

// The 95 % repeat interval of the mean of `n` clean segments whose spread is `sd`.
analysis::Bounds clean_interval(double mean, double sd, std::size_t n) {
  const double half =
      n > 1 ? analysis::t95(n - 1) * sd * std::sqrt(2.0 / static_cast<double>(n)) : 0.0;
  return {mean - half, mean + half};
}

}  // namespace
namespace {

// One footprint's level: its chains' clean mean (less the faster level's hits, where some hit
// it), the interval and outlier share around it, and the evidence; nullopt where the footprint is
// left out (its evidence still added).
struct FootprintLevel {
  double level = 0;
  double outlier_share = 0;
  analysis::Bounds bounds;
  double resolution = 0;  // the clock's, a load: a segment's count is whole cycles, read twice
};
std::optional<FootprintLevel> footprint_level(std::span<const device::ChaseResult> chosen,
                                              std::uint64_t bytes, std::optional<double> share,
                                              double faster_cycles, model::Json& evidence) {
  std::vector<double> pooled;
  model::Json sms = model::Json::array();
  for (const auto& r : chosen) {
    const auto s = segment_latencies(r);
    pooled.insert(pooled.end(), s.begin(), s.end());
    sms.push_back(r.sm);
  }
  const auto sum = analysis::summarize(pooled);
  // Rare slow loads (an interrupt, a refresh) lengthen a segment and never shorten one: the mean
  // of the clean segments is the level's latency, the median and the extremes are evidence.
  const SegmentLevel clean = segment_level(chosen);
  model::Json e = {{"bytes", bytes},
                   {"sms", sms},
                   {"cleanMean", clean.cycles},
                   {"outlierShare", clean.outlier_share},
                   {"median", sum.median},
                   {"mean", sum.mean},
                   {"min", sum.min},
                   {"max", sum.max},
                   {"segments", sum.n},
                   {"loadsPerSegment", segment_loads_of(chosen.front())},
                   {"segmentOverheadCycles", chosen.front().overhead_cycles}};
  FootprintLevel f{clean.cycles, clean.outlier_share,
                   clean_interval(clean.cycles, clean.segment_sd, clean.clean),
                   2.0 / segment_loads_of(chosen.front())};
  if (share) {
    e["fasterHitShare"] = *share;
    if (*share > 0.9) {
      e["leftOut"] = "over 90 % of the loads hit the faster level";
      evidence.push_back(std::move(e));
      return std::nullopt;
    }
    // The share counts all the loads, so the mixture is taken over all of them: the mean of the
    // segments, less those a slow load threw high (short segments of a mixture spread between
    // the two levels, so no one level of them is clean).
    if (*share > 0) {
      const auto without = [&](double mean) {
        return (mean - *share * faster_cycles) / (1 - *share);
      };
      const auto mixed = analysis::high_trimmed(pooled);
      f.level = without(mixed.level);
      f.outlier_share = mixed.outlier_share;
      const auto m = clean_interval(mixed.level, mixed.sd, mixed.clean);
      f.bounds = {without(m.lo), without(m.hi)};
      e["mixtureMean"] = mixed.level;
      e["outlierShare"] = f.outlier_share;
    }
    e["withoutFasterHits"] = f.level;
  }
  evidence.push_back(std::move(e));
  return f;
}

}  // namespace

std::optional<ChainLatency> chain_latency(std::span<const device::ChaseResult> results,
                                          std::span<const std::uint64_t> footprints,
                                          const std::optional<FasterHits>& faster) {
  std::vector<std::uint64_t> distinct;
  for (auto f : footprints)
    if (std::find(distinct.begin(), distinct.end(), f) == distinct.end()) distinct.push_back(f);
  ChainLatency out;
  out.evidence = model::Json::array();
  std::vector<double> medians;
  double worst_share = 0;
  analysis::Bounds hull;
  double resolution = 0;
  for (std::size_t k = 0; k < distinct.size(); ++k) {
    std::vector<device::ChaseResult> chosen;
    for (std::size_t i = 0; i < results.size() && i < footprints.size(); ++i)
      if (footprints[i] == distinct[k]) chosen.push_back(results[i]);
    if (chosen.empty()) continue;
    const bool mixed = faster && k < faster->shares.size();
    const auto f = footprint_level(chosen, distinct[k],
                                   mixed ? std::optional(faster->shares[k]) : std::nullopt,
                                   faster ? faster->cycles : 0, out.evidence);
    if (!f) continue;
    worst_share = std::max(worst_share, f->outlier_share);
    resolution = std::max(resolution, f->resolution);
    hull = medians.empty() ? analysis::holding(f->bounds, f->level)
                           : analysis::hull(hull, analysis::holding(f->bounds, f->level));
    medians.push_back(f->level);
  }
  if (medians.empty()) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  out.cycles = analysis::median(medians);
  hull = analysis::widen(hull, resolution);
  out.interval = {hull.lo, hull.hi};
  const double disagreement = out.cycles > 0 ? (*hi - *lo) / out.cycles : 1.0;
  out.confidence = std::min(std::clamp(1.0 - (disagreement - 0.01) / 0.09, 0.0, 1.0),
                            analysis::outlier_confidence(worst_share));
  if (medians.size() < 2) out.confidence = std::min(out.confidence, 0.5);
  return out;
}

void put_chain_latency(Context& ctx, const std::string& element, const LatencyKeys& key,
                       const ChainLatency& latency, const device::RunConditions& conditions,
                       const std::string& method, double cap, const std::string& reason) {
  const double confidence = std::min(latency.confidence, cap);
  auto cycles = model::Attribute::measured(latency.cycles, "cycles", method, confidence);
  cycles.evidence = {{"footprints", latency.evidence}};
  cycles.interval = latency.interval;
  cycles.reason = reason;
  ctx.put(element, key.cycles, cycles);
  if (const auto ns = ctx.ns_per_cycle(conditions)) {
    auto a = model::Attribute::measured(latency.cycles * *ns, "ns",
                                        method + ", " + Context::ns_method(conditions), confidence);
    a.evidence = {{"cycles", latency.cycles}, {"nsPerCycle", *ns}};
    a.interval = model::scaled(latency.interval, *ns);
    a.reason = reason;
    ctx.put(element, key.ns, a);
  } else {
    ctx.put(element, key.ns,
            model::Attribute::unavailable(model::Source::Measured, "ns",
                                          "no SM clock known to convert cycles to ns"));
  }
}

model::Json per_load_evidence(const std::vector<double>& sample, double overhead_cycles) {
  if (sample.empty()) return model::Json::object();
  const auto s = analysis::summarize(sample);
  const double dominant = analysis::dominant_level_share(analysis::cluster_levels(sample));
  return {{"median", s.median},
          {"p95", s.p95},
          {"samples", s.n},
          {"dominantLevelShare", dominant},
          {"overheadCycles", overhead_cycles},
          {"note",
           "per-load samples less the timing overhead; they classify loads, the chain "
           "gives the latency"}};
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
  ctx.put(t.element, keys::carveout, std::move(a));
}

std::uint32_t fetch_granularity_or(const Context& ctx, const Target& t, std::uint32_t fallback,
                                   std::vector<std::string>& weaker) {
  const Input fg = ctx.input(t.element, keys::fetchGranularity);
  if (fg && *fg.value >= 1) return static_cast<std::uint32_t>(*fg.value);
  weaker.push_back(fg.why + "; used " + std::to_string(fallback) + " B steps instead");
  return fallback;
}

std::optional<std::string> gate(const Context& ctx, const Target& t) {
  if (const auto* cached = ctx.get(t.element, keys::globalLoadsCached);
      cached && cached->value.is_boolean() && !cached->value.get<bool>())
    return "global loads are not cached in L1 on this GPU (see globalLoadsCached)";
  return std::nullopt;
}

void add_evidence(Context& ctx, const std::string& element, const model::Key& key,
                  const std::string& name, model::Json value) {
  const auto* found = ctx.get(element, key);
  if (!found) return;
  auto a = *found;
  if (!a.evidence.is_object()) a.evidence = model::Json::object();
  a.evidence[name] = std::move(value);
  ctx.put(element, key, std::move(a));
}

std::uint32_t chain_stride(device::Space space, std::uint32_t stride) {
  return device::global_load(space) ? static_cast<std::uint32_t>(round_up(stride, 8)) : stride;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace gputopo::discovery
