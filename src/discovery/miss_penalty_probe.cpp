#include <algorithm>

#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes.hpp"

namespace gputopo::discovery {
namespace {

// A chase over four times the cache at the line size (every load a new line, so every load
// misses here and is served by the next level); the penalty is its median minus the hit median.
class MissPenaltyProbe final : public Probe {
 public:
  MissPenaltyProbe(const Target& t, std::vector<std::string> needs)
      : Probe(probe_name(t, "missPenalty"), {t.element}, std::move(needs)), t_(t) {}

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put(t_.element, "missPenalty",
              model::Attribute::unavailable(model::Source::Measured, "cycles", why));
    };
    if (auto why = gate(ctx, t_)) return fail(*why);
    const Input size = ctx.input(t_.element, "size");
    if (!size) return fail("needs the cache size: " + size.why);
    const auto* hit = ctx.get(t_.element, "latency");
    if (!hit || !hit->available()) return fail("needs the hit latency");
    std::vector<std::string> weaker;
    const Input line = ctx.input(t_.element, "lineSize");
    std::uint32_t stride = 0;
    if (line) {
      stride = static_cast<std::uint32_t>(*line.value);
    } else {
      stride = fetch_granularity_or(ctx, t_, 32, weaker);
      weaker.push_back(line.why + "; stride " + std::to_string(stride) + " B");
    }
    std::uint64_t bytes = round_up(static_cast<std::uint64_t>(*size.value * 4), stride);
    if (t_.space_limit_bytes) bytes = std::min(bytes, t_.space_limit_bytes);
    if (static_cast<double>(bytes) < 1.5 * *size.value)
      return fail("the space cannot hold an array well past the cache");

    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    const int sms = std::min(4, std::max(ctx.info().sm_count, 1));
    for (int i = 0; i < sms; ++i)
      batch.requests.push_back(chase_request(t_.space, bytes, stride, 1, 1024));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    record_carveout(ctx, t_, result.conditions);
    const auto sample = pooled_latencies(result);
    const auto s = analysis::summarize(sample);
    const double hit_median = hit->value.get<double>();
    const double penalty = s.median - hit_median;

    auto a = model::Attribute::measured(
        penalty, "cycles",
        "median miss latency (" + std::to_string(bytes) + " B array, " + std::to_string(stride) +
            " B stride) minus median hit latency",
        std::min(hit->confidence.value_or(0), size.value ? 1.0 : 0.0));
    a.evidence = {{"missMedian", s.median}, {"missMean", s.mean}, {"missP95", s.p95},
                  {"missStdev", s.stdev},   {"samples", s.n},     {"hitMedian", hit_median}};
    a.reason = join(weaker);
    ctx.put(t_.element, "missPenalty", a);
    if (const auto ns = ctx.ns_per_cycle(result.conditions)) {
      auto b = a;
      b.value = penalty * *ns;
      b.unit = "ns";
      b.evidence["nsPerCycle"] = *ns;
      ctx.put(t_.element, "missPenaltyNs", b);
    }
  }

 private:
  Target t_;
};

}  // namespace

std::unique_ptr<Probe> make_miss_penalty_probe(const Target& t, std::vector<std::string> needs) {
  return std::make_unique<MissPenaltyProbe>(t, std::move(needs));
}

}  // namespace gputopo::discovery
