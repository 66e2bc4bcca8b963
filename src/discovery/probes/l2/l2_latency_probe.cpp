#include <algorithm>

#include "analysis/cluster.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kChainLoads = 2048;
// Per-load chases time the same loads as the chains (same start, same warm-up), so that the share
// of near hits they count is the share inside the chains.
constexpr std::uint32_t kPerLoadLoads = kChainLoads;

// Near and far hit latency as dependent chains on one SM at line stride, every load a new line:
// the near level over an eighth and a quarter of a segment, and on a segmented L2 the far level
// over two footprints between one segment and the whole L2 (35 % and 65 % of the way), where the
// near segment thrashes and the other segments hold the rest. Per-load chases over the larger near
// footprint and each far footprint say which share of the far chain still hit near (a replacement
// other than LRU keeps some lines near); those loads are taken out of the far latency. The miss
// penalty is the
// device-memory latency minus the near latency, both chains on the same SM.
class L2LatencyProbe final : public Probe {
 public:
  L2LatencyProbe() : Probe("l2.latency", {"l2"}) {
    declare({{"l2", &keys::segmentSize},
             {"l2", &keys::segmentCount},
             {"l2", &keys::lineSize},
             {"l2", &keys::fetchGranularity},
             {"dram", &keys::latency}},
            {{"l2", &keys::nearLatency},
             {"l2", &keys::nearLatencyNs},
             {"l2", &keys::farLatency},
             {"l2", &keys::farLatencyNs},
             {"l2", &keys::missPenalty},
             {"l2", &keys::missPenaltyNs}});
  }

  void run(Context& ctx) override {
    const SegmentSpan segment = segment_span(ctx);
    std::vector<std::string> weaker;
    const std::uint32_t stride = chain_stride(device::Space::L2, l2_line_or_fetch(ctx, weaker));
    const auto near = footprints(near_span(ctx, segment, weaker), {0.125, 0.25}, stride);
    // Every count the step allows has far segments: the far footprints lie past the largest.
    const bool far = segment.measured && segment.fewest > 1;
    const std::vector<std::uint64_t> far_bytes =
        far ? far_footprints(segment.largest, static_cast<double>(ctx.info().l2_bytes()), stride)
            : std::vector<std::uint64_t>{};
    device::ChaseBatch batch;
    std::vector<std::uint64_t> chained = near;
    chained.insert(chained.end(), far_bytes.begin(), far_bytes.end());
    for (const auto bytes : chained) batch.requests.push_back(chain(bytes, stride));
    batch.requests.push_back(l2_chase(near.back(), stride, 1, kPerLoadLoads, kLatencySm));
    for (const auto bytes : far_bytes)
      batch.requests.push_back(l2_chase(bytes, stride, 1, kPerLoadLoads, kLatencySm));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    const std::string reason = join(weaker);
    const auto& r = result.results;
    const std::size_t per_load = chained.size();
    const auto near_per_load = latencies(r[per_load]);
    const auto near_loads = per_load_evidence(near_per_load, r[per_load].overhead_cycles);

    const auto near_latency = chain_latency(std::span(r).first(2), near);
    if (near_latency) {
      put_chain_latency(ctx, "l2", kNearLatencyKeys, *near_latency, result.conditions,
                        method("near", near, stride), near_loads.value("dominantLevelShare", 0.0),
                        reason);
      add_evidence(ctx, "l2", keys::nearLatency, "sm", kLatencySm);
      add_evidence(ctx, "l2", keys::nearLatency, "perLoad", near_loads);
    } else {
      ctx.put("l2", keys::nearLatency,
              model::Attribute::unavailable(model::Source::Measured, "cycles",
                                            "the chains returned no timing"));
    }

    if (far && near_latency) {
      FasterHits near_hits{near_latency->cycles, {}};
      for (std::size_t k = 0; k < far_bytes.size(); ++k)
        near_hits.shares.push_back(
            analysis::share_in_level_of(near_per_load, latencies(r[per_load + 1 + k])));
      const auto far_latency =
          chain_latency(std::span(r).subspan(2, far_bytes.size()), far_bytes, near_hits);
      if (far_latency) {
        put_chain_latency(ctx, "l2", kFarLatencyKeys, *far_latency, result.conditions,
                          method("far", far_bytes, stride) +
                              "; loads that still hit near (per-load samples over the same "
                              "footprints) are taken out",
                          1.0, reason);
        add_evidence(ctx, "l2", keys::farLatency, "sm", kLatencySm);
        const auto& far_result = r[per_load + 1];
        add_evidence(ctx, "l2", keys::farLatency, "perLoad",
                     per_load_evidence(latencies(far_result), far_result.overhead_cycles));
      } else {
        ctx.put("l2", keys::farLatency,
                model::Attribute::unavailable(model::Source::Measured, "cycles",
                                              "the chains returned no timing"));
      }
    } else {
      const std::string why = !segment.measured ? "needs the segment size and count: " + segment.why
                              : !near_latency   ? "needs the near latency"
                              : segment.established
                                  ? "the L2 has one segment: there is no far level"
                                  : segment.why + "; it may have one segment (no far level)";
      ctx.put("l2", keys::farLatency,
              model::Attribute::unavailable(model::Source::Measured, "cycles", why));
    }
    put_miss_penalty(ctx, result.conditions);
  }

 private:
  // The span whose eighth and quarter the near chains cover: the segment, or at most a quarter
  // of the larger of two neighbouring fractions (inside either); without one, half the API L2.
  static std::uint64_t near_span(const Context& ctx, const SegmentSpan& segment,
                                 std::vector<std::string>& weaker) {
    if (!segment.measured) {
      weaker.push_back(segment.why + "; near arrays sized from half the API L2");
      return ctx.info().l2_bytes() / 2;
    }
    if (!segment.established)
      weaker.push_back(segment.why +
                       "; arrays sized from the larger of the two segments the step lies between");
    return static_cast<std::uint64_t>(segment.largest);
  }

  // 35 % and 65 % of the way from one segment to the whole L2.
  static std::vector<std::uint64_t> far_footprints(double segment, double whole,
                                                   std::uint32_t stride) {
    std::vector<std::uint64_t> out;
    for (const double at : {0.35, 0.65})
      out.push_back(round_up(static_cast<std::uint64_t>(segment + (whole - segment) * at), stride));
    return out;
  }

  static std::vector<std::uint64_t> footprints(std::uint64_t span, std::vector<double> shares,
                                               std::uint32_t stride) {
    std::vector<std::uint64_t> out;
    for (const double share : shares)
      out.push_back(round_up(
          std::max<std::uint64_t>(static_cast<std::uint64_t>(static_cast<double>(span) * share),
                                  std::uint64_t{stride} * 256),
          stride));
    return out;
  }

  static device::ChaseRequest chain(std::uint64_t bytes, std::uint32_t stride) {
    auto r = chain_request(device::Space::L2, bytes, stride, 1, kChainLoads);
    r.sm = kLatencySm;
    return r;
  }

  static std::string method(const std::string& level, const std::vector<std::uint64_t>& bytes,
                            std::uint32_t stride) {
    return "dependent chain on the L2 space timed as a whole (cycles / loads) over " +
           std::to_string(bytes.front()) + " and " + std::to_string(bytes.back()) + " B at " +
           std::to_string(stride) + " B stride on SM " + std::to_string(kLatencySm) +
           " (inside the " + level + " level); confidence: agreement of the footprints";
  }

  static void put_miss_penalty(Context& ctx, const device::RunConditions& conditions) {
    const auto* dram = ctx.get("dram", keys::latency);
    const auto* near = ctx.get("l2", keys::nearLatency);
    if (!dram || !dram->available() || !near || !near->available()) {
      ctx.put("l2", keys::missPenalty,
              model::Attribute::unavailable(model::Source::Measured, "cycles",
                                            "needs the device-memory and near-hit latencies"));
      return;
    }
    const double hit = near->value.get<double>();
    const double miss = dram->value.get<double>();
    auto a = model::Attribute::measured(
        miss - hit, "cycles", "device-memory latency minus near-hit latency, chains on one SM",
        std::min(near->confidence.value_or(0), dram->confidence.value_or(0)));
    a.evidence = {{"missLatency", miss}, {"hitLatency", hit}};
    a.interval = model::difference(dram->interval, near->interval);
    ctx.put("l2", keys::missPenalty, a);
    if (const auto ns = ctx.ns_per_cycle(conditions)) {
      auto b = a;
      b.value = (miss - hit) * *ns;
      b.interval = model::scaled(a.interval, *ns);
      b.unit = "ns";
      b.evidence["nsPerCycle"] = *ns;
      ctx.put("l2", keys::missPenaltyNs, b);
    }
  }
};

}  // namespace

// Near and far hit latency from chases inside one segment and past it, miss penalty against the
// device-memory latency.
GPUTOPO_REGISTER_PROBE(Family::L2, 50, Made::Once,
                       [](const Site&) { return std::make_unique<L2LatencyProbe>(); });

}  // namespace gputopo::discovery
