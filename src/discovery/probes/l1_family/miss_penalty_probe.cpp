#include <algorithm>

#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"

namespace gputopo::discovery {
namespace {

// Chains over four and six times the cache at the line size (every load a new line, so every load
// misses here and is served by the next level); the penalty is their latency minus the hit
// latency.
class MissPenaltyProbe final : public Probe {
 public:
  explicit MissPenaltyProbe(const Target& t)
      : Probe(probe_name(t, "missPenalty"), {t.element}), t_(t) {
    declare({{t.element, &keys::globalLoadsCached},
             {t.element, &keys::fetchGranularity},
             {t.element, &keys::size},
             {t.element, &keys::latency},
             {t.element, &keys::lineSize}},
            {{t.element, &keys::missPenalty},
             {t.element, &keys::missPenaltyNs},
             {t.element, &keys::carveout}});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put(t_.element, keys::missPenalty,
              model::Attribute::unavailable(model::Source::Measured, "cycles", why));
    };
    if (auto why = gate(ctx, t_)) return fail(*why);
    const Input size = ctx.input(t_.element, keys::size);
    if (!size) return fail("needs the cache size: " + size.why);
    const auto* hit = ctx.get(t_.element, keys::latency);
    if (!hit || !hit->available()) return fail("needs the hit latency");
    std::vector<std::string> weaker;
    const Input line = ctx.input(t_.element, keys::lineSize);
    std::uint32_t stride = 0;
    if (line) {
      stride = static_cast<std::uint32_t>(*line.value);
    } else {
      stride = fetch_granularity_or(ctx, t_, 32, weaker);
      weaker.push_back(line.why + "; stride " + std::to_string(stride) + " B");
    }
    stride = chain_stride(t_.space, stride);
    std::vector<std::uint64_t> footprints;
    for (const double times : {4.0, 6.0}) {
      std::uint64_t bytes = round_up(static_cast<std::uint64_t>(*size.value * times), stride);
      if (t_.space_limit_bytes) bytes = std::min(bytes, t_.space_limit_bytes);
      footprints.push_back(bytes);
    }
    if (static_cast<double>(footprints.front()) < 1.5 * *size.value)
      return fail("the space cannot hold an array well past the cache");

    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    // On the SM the L2 latencies are measured on: the next level's latency depends on the SM.
    for (const auto bytes : footprints) {
      auto r = chain_request(t_.space, bytes, stride, 1, 1024);
      r.sm = kLatencySm;
      batch.requests.push_back(r);
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    record_carveout(ctx, t_, result.conditions);
    const auto miss = chain_latency(result.results, footprints);
    if (!miss) return fail("the chains returned no timing");
    const double hit_cycles = hit->value.get<double>();
    const double penalty = miss->cycles - hit_cycles;

    auto a = model::Attribute::measured(
        penalty, "cycles",
        "dependent-chain latency over 4 and 6 times the cache at " + std::to_string(stride) +
            " B stride (every load a miss here) minus the hit latency",
        std::min({hit->confidence.value_or(0), miss->confidence, size.value ? 1.0 : 0.0}));
    a.evidence = {
        {"missLatency", miss->cycles}, {"hitLatency", hit_cycles}, {"footprints", miss->evidence}};
    a.reason = join(weaker);
    a.interval = model::difference(miss->interval, hit->interval);
    ctx.put(t_.element, keys::missPenalty, a);
    if (const auto ns = ctx.ns_per_cycle(result.conditions)) {
      auto b = a;
      b.value = penalty * *ns;
      b.interval = model::scaled(a.interval, *ns);
      b.unit = "ns";
      b.evidence["nsPerCycle"] = *ns;
      ctx.put(t_.element, keys::missPenaltyNs, b);
    }
  }

 private:
  Target t_;
};

}  // namespace

std::unique_ptr<Probe> make_miss_penalty_probe(const Target& t) {
  return std::make_unique<MissPenaltyProbe>(t);
}

}  // namespace gputopo::discovery
