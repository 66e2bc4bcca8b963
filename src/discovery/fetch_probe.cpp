#include <algorithm>

#include "analysis/inference.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes.hpp"

namespace gputopo::discovery {
namespace {

// Cold pass over strides 4 B .. 1 KiB: a load misses exactly when it reaches a granule not fetched
// yet, so the miss fraction is min(1, stride / granularity). For a level-2 target the strides
// start at the level-1 granularity, so that every load passes the level in front.
class FetchProbe final : public Probe {
 public:
  FetchProbe(const Target& t, std::vector<std::string> needs)
      : Probe(probe_name(t, "fetch"), {t.element}, std::move(needs)), t_(t) {}

  void run(Context& ctx) override {
    if (auto why = gate(ctx, t_)) {
      ctx.put(t_.element, "fetchGranularity",
              model::Attribute::unavailable(model::Source::Measured, "B", *why));
      return;
    }
    std::vector<std::string> weaker;
    std::uint32_t first = 4;
    if (t_.level > 1) {
      Target inner = t_;
      inner.element = t_.inner;
      first = fetch_granularity_or(ctx, inner, 4, weaker);
    }
    constexpr std::uint32_t kLoads = 256;
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    std::vector<std::uint32_t> strides;
    for (std::uint32_t s = std::max<std::uint32_t>(first, 4); s <= 1024; s *= 2) {
      std::uint64_t bytes = std::uint64_t{s} * kLoads;
      if (t_.space_limit_bytes) bytes = std::min(bytes, t_.space_limit_bytes);
      if (bytes / s < 16) break;
      auto r = chase_request(t_.space, bytes, s, 0, kLoads);
      r.recorded_loads = static_cast<std::uint32_t>(std::min<std::uint64_t>(kLoads, bytes / s));
      batch.requests.push_back(r);
      strides.push_back(s);
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    record_carveout(ctx, t_, result.conditions);
    std::vector<analysis::SweepPoint> sweep;
    for (std::size_t i = 0; i < strides.size(); ++i)
      sweep.push_back({static_cast<double>(strides[i]), latencies(result.results[i])});
    const auto e = analysis::fetch_granularity(sweep);

    model::Attribute a;
    if (e.established) {
      a = model::Attribute::measured(e.value, "B", "cold-stride-sweep", e.confidence);
      a.interval = model::Interval{e.lo, e.hi};
    } else {
      a = model::Attribute::unavailable(model::Source::Measured, "B", e.reason);
      a.method = "cold-stride-sweep";
      a.confidence = e.confidence;
    }
    weaker.push_back(e.reason);
    weaker.erase(std::remove(weaker.begin(), weaker.end(), std::string{}), weaker.end());
    if (e.established) a.reason = join(weaker);
    a.evidence = {{"strides", strides}};
    ctx.put(t_.element, "fetchGranularity", std::move(a));
  }

 private:
  Target t_;
};

}  // namespace

std::unique_ptr<Probe> make_fetch_probe(const Target& t, std::vector<std::string> needs) {
  return std::make_unique<FetchProbe>(t, std::move(needs));
}

}  // namespace gputopo::discovery
