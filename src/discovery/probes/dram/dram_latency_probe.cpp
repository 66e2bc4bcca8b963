#include <algorithm>

#include "analysis/cluster.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kDramLoads = 2048;

// Device memory: the latency of a load that misses the whole L2:
// dependent chains on one SM over 2 and 4 times the API L2 size at line stride, warmed once, so
// that every load is an L2 capacity miss. Without an L2 size, cold chains (L2 flushed, no warm-up)
// over fresh lines. Per-load chases over the same footprints and a near reference (a sixteenth of
// the L2) give the share of loads that still hit near, taken out of the chains; their levels are
// evidence (on a partitioned L2 misses reach memory by paths of different length).
class DramLatencyProbe final : public Probe {
 public:
  DramLatencyProbe() : Probe("dram.latency", {"dram"}) {
    declare({{"l2", &keys::lineSize}, {"l2", &keys::fetchGranularity}, {"mall", &keys::size}},
            {{"dram", &keys::latency}, {"dram", &keys::latencyNs}});
  }

  void run(Context& ctx) override {
    std::vector<std::string> weaker;
    const std::uint32_t stride = chain_stride(device::Space::L2, l2_line_or_fetch(ctx, weaker));
    const std::uint64_t l2 = ctx.info().l2_bytes();
    // A memory-side cache behind the L2 (measured, or the driver's size) is passed as well.
    std::uint64_t mall = ctx.info().mall_bytes();
    if (const Input m = ctx.input("mall", keys::size); m)
      mall = std::max(mall, static_cast<std::uint64_t>(*m.value));
    std::vector<std::uint64_t> footprints;
    std::uint32_t warmup = 1;
    std::string what;
    if (mall > l2) {
      footprints = {round_up(mall + mall / 2, stride), round_up(2 * mall, stride)};
      what =
          "over 1.5 and 2 times the memory-side cache, warmed once (every load a capacity miss "
          "of the L2 and of the memory-side cache)";
    } else if (l2 > 0) {
      footprints = {round_up(2 * l2, stride), round_up(4 * l2, stride)};
      what = "over 2 and 4 times the API L2 size, warmed once (every load an L2 capacity miss)";
    } else {
      footprints = {std::uint64_t{stride} * kDramLoads, std::uint64_t{stride} * kDramLoads * 2};
      warmup = 0;
      what = "over fresh lines, cold (no L2 size known; L2 flushed, no warm-up)";
      weaker.push_back("the driver reports no L2 size: cold loads instead of capacity misses");
    }
    // Chains over the footprints and over a near reference inside the L2, then per-load chases
    // timing the same loads: the share of them that still hit near is taken out of the chains.
    const std::uint64_t near = round_up(std::max<std::uint64_t>(l2 / 16, stride * 256), stride);
    device::ChaseBatch batch;
    for (const auto bytes : {footprints[0], footprints[1], near}) {
      auto r =
          chain_request(device::Space::L2, bytes, stride, bytes == near ? 1 : warmup, kDramLoads);
      r.sm = kLatencySm;
      batch.requests.push_back(r);
    }
    for (const auto bytes : {footprints[0], footprints[1], near})
      batch.requests.push_back(
          l2_chase(bytes, stride, bytes == near ? 1 : warmup, kDramLoads, kLatencySm));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    const auto& r = result.results;
    const auto near_chain = chain_latency(std::span(r).subspan(2, 1), std::span(&near, 1));
    std::optional<FasterHits> near_hits;
    if (near_chain && l2 > 0) {
      const auto reference = latencies(r[5]);
      near_hits = FasterHits{near_chain->cycles,
                             {analysis::share_in_level_of(reference, latencies(r[3])),
                              analysis::share_in_level_of(reference, latencies(r[4]))}};
    }
    const auto latency = chain_latency(std::span(r).first(2), footprints, near_hits);
    if (!latency) {
      ctx.put("dram", keys::latency,
              model::Attribute::unavailable(model::Source::Measured, "cycles",
                                            "the chains returned no timing"));
      return;
    }
    put_chain_latency(ctx, "dram", kLatencyKeys, *latency, result.conditions,
                      "dependent chain on the L2 space timed as a whole (cycles / loads) " + what +
                          ", " + std::to_string(stride) + " B stride, SM " +
                          std::to_string(kLatencySm) + "; confidence: agreement of the footprints",
                      1.0, join(weaker));
    add_evidence(ctx, "dram", keys::latency, "sm", kLatencySm);
    const auto& per_load = r[4];
    auto loads = per_load_evidence(latencies(per_load), per_load.overhead_cycles);
    model::Json levels = model::Json::array();
    for (const auto& l : analysis::cluster_levels(latencies(per_load)).levels)
      levels.push_back({{"center", l.center}, {"weight", l.weight}, {"lo", l.lo}, {"hi", l.hi}});
    loads["levels"] = std::move(levels);
    add_evidence(ctx, "dram", keys::latency, "perLoad", std::move(loads));
  }
};

}  // namespace

// Device memory: size from the API, latency of L2 capacity misses.
GPUTOPO_REGISTER_PROBE(Family::Dram, 10, Made::Once,
                       [](const Site&) { return std::make_unique<DramLatencyProbe>(); });

}  // namespace gputopo::discovery
