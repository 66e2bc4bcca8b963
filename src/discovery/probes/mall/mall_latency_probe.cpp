#include <algorithm>

#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kMallLoads = 2048;

// A load that misses the L2 and hits the memory-side cache: dependent chains on one SM over 4 and
// 8 times the L2 capacity (at most half the memory-side cache), warmed once, so that every load
// misses the L2 and the memory-side cache holds the whole chain.
class MallLatencyProbe final : public Probe {
 public:
  MallLatencyProbe() : Probe("mall.latency", {"mall"}) {
    declare({{"mall", &keys::size}, {"l2", &keys::capacity}, {"l2", &keys::fetchGranularity}},
            {{"mall", &keys::latency}, {"mall", &keys::latencyNs}});
  }

  void run(Context& ctx) override {
    const auto fail = [&](const std::string& why) {
      for (const model::Key* key : {&keys::latency, &keys::latencyNs})
        ctx.put(
            "mall", *key,
            model::Attribute::unavailable(model::Source::Measured, std::string(key->unit), why));
    };
    const Input size = ctx.input("mall", keys::size);
    if (!size) return fail("no memory-side cache measured: " + size.why);
    const Input l2 = ctx.input("l2", keys::capacity);
    if (!l2) return fail("needs the L2 capacity: " + l2.why);
    std::vector<std::string> weaker;
    const std::uint32_t stride =
        chain_stride(device::Space::L2, fetch_granularity_or(ctx, l2_target(), 64, weaker));
    const double half = *size.value / 2;
    if (half < 2 * *l2.value)
      return fail(
          "the memory-side cache is under four times the L2: no footprint misses the "
          "one and fits the other by a margin");
    std::vector<std::uint64_t> footprints;
    for (const double f : {4.0, 8.0})
      footprints.push_back(
          round_up(static_cast<std::uint64_t>(std::min(f * *l2.value, half)), stride));
    if (footprints[0] == footprints[1]) footprints.pop_back();
    device::ChaseBatch batch;
    for (const auto bytes : footprints) {
      auto r = chain_request(device::Space::L2, bytes, stride, 1, kMallLoads);
      r.sm = kLatencySm;
      batch.requests.push_back(r);
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    const auto latency = chain_latency(result.results, footprints);
    if (!latency) return fail("the chains returned no timing");
    put_chain_latency(ctx, "mall", kLatencyKeys, *latency, result.conditions,
                      "dependent chain on the L2 space timed as a whole (cycles / loads) over 4 "
                      "and 8 times the L2 capacity (at most half the memory-side cache), warmed "
                      "once, " +
                          std::to_string(stride) + " B stride, SM " + std::to_string(kLatencySm) +
                          "; confidence: agreement of the footprints",
                      1.0, join(weaker));
  }
};

}  // namespace

// The latency of a load that misses the L2 and hits the memory-side cache.
GPUTOPO_REGISTER_PROBE(Family::Mall, 20, Made::Once,
                       [](const Site&) { return std::make_unique<MallLatencyProbe>(); });

}  // namespace gputopo::discovery
