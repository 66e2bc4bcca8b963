#include <algorithm>
#include <cmath>

#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// Past the L2 capacity one SM's chase is served by whatever lies behind the L2. A size search on
// the L2 space from 1.5 times the L2 capacity finds the next step: where a memory-side cache ends
// and device memory begins. Without a step up to its limit there is no memory-side cache in that
// range. The driver's size (HSA's L3 on AMD), where it reports one, bounds the search and
// cross-checks the step.
class MallSizeProbe final : public Probe {
 public:
  MallSizeProbe() : Probe("mall.size", {"mall"}) {
    declare({{"l2", &keys::capacity}, {"l2", &keys::fetchGranularity}}, {{"mall", &keys::size}});
  }

  void run(Context& ctx) override {
    const Input l2 = ctx.input("l2", keys::capacity);
    if (!l2) return note(ctx, {}, "needs the L2 capacity: " + l2.why);
    std::vector<std::string> weaker;
    const std::uint32_t stride = fetch_granularity_or(ctx, l2_target(), 64, weaker);
    const double api = static_cast<double>(ctx.info().mall_bytes());
    const auto l2_bytes = static_cast<std::uint64_t>(*l2.value);
    // Without a driver size, eight times the L2: a memory-side cache smaller than that is found.
    const std::uint64_t limit = api > 0 ? static_cast<std::uint64_t>(api * 1.5) : 8 * l2_bytes;
    SizeSearchSpec spec = l2_search_spec(api > 0 ? ctx.info().mall_bytes() : limit, stride);
    spec.min_bytes = round_up(l2_bytes + l2_bytes / 2, spec.step);
    spec.max_bytes = round_up(limit, spec.step);
    // Every point warms an array of hundreds of MiB: 8 sizes a round narrow the bracket to the
    // finest step in two rounds, at half the loads of the L2's 32.
    spec.points_per_batch = 8;
    const auto r = search_size(ctx, spec);
    model::Json e = r.evidence;
    e["batches"] = r.batches;
    e["strideBytes"] = stride;
    e["l2CapacityBytes"] = *l2.value;
    if (api > 0) e["apiBytes"] = api;
    if (!r.established) {
      if (r.capped)
        return note(ctx, e,
                    "no memory-side cache: one SM's loads past the L2 show no further step up to " +
                        std::to_string(spec.max_bytes) + " B" +
                        (api > 0 ? "" : " (the driver reports none)"));
      return note(ctx, e, "no step past the L2 established: " + r.reason);
    }
    double confidence = r.confidence;
    if (api > 0) {
      const double d = std::abs(r.value - api) / api;
      e["relativeDifference"] = d;
      e["agrees"] = d <= 0.1;
      if (d > 0.1) {
        confidence *= 0.5;
        weaker.push_back("the step differs from the driver's size by more than 10 %");
      }
    }
    auto a = model::Attribute::measured(
        r.value, "B", "pchase-size-sweep on the L2 space past the L2 capacity, one SM", confidence);
    a.interval = model::Interval{r.lo, r.hi};
    a.evidence = std::move(e);
    a.reason = join(weaker);
    ctx.put("mall", keys::size, std::move(a));
  }

 private:
  static void note(Context& ctx, model::Json evidence, const std::string& why) {
    auto a = model::Attribute::unavailable(model::Source::Measured, "B", why);
    a.evidence = std::move(evidence);
    ctx.put("mall", keys::size, std::move(a));
  }
};

}  // namespace

// The capacity step past the L2's: one SM's chase at the L2's fetch granularity (what an L2 miss
// brings in is what the memory-side cache holds).
GPUTOPO_REGISTER_PROBE(Family::Mall, 10, Made::Once,
                       [](const Site&) { return std::make_unique<MallSizeProbe>(); });

}  // namespace gputopo::discovery
