#include <algorithm>
#include <string>
#include <vector>

#include "device/compute_request.hpp"
#include "discovery/context.hpp"
#include "discovery/probes/compute/compute_batch.hpp"
#include "discovery/probes/compute/pipeline_probe.hpp"
#include "discovery/probes/compute/slope.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// 1, 2, 4, ... warps, and the most a block holds.
std::vector<std::uint32_t> barrier_warp_counts(const device::DeviceInfo& info) {
  const auto warp = static_cast<std::uint32_t>(std::max(info.warp_size(), 1));
  const std::uint32_t most =
      std::max<std::uint32_t>(static_cast<std::uint32_t>(info.max_threads_per_block()) / warp, 1);
  std::vector<std::uint32_t> counts;
  for (std::uint32_t w = 1; w < most; w *= 2) counts.push_back(w);
  counts.push_back(most);
  return counts;
}

constexpr const char* kBarrierMethod =
    "one block; each thread a chain of bar.sync 0 and add.u32 (SASS BAR.SYNC.DEFER_BLOCKING; "
    "ptxas folds the adds to about one IMAD per two barriers), cycles per step between chains of "
    "256 and 1024 steps, the median of 5 repeats";

// Writes compute.syncthreadsLatency and compute.syncthreadsBlockLatency: the cycles of one
// __syncthreads (bar.sync 0) in a dependent chain, for a block of one warp and of the most warps,
// with every warp count between in the evidence (Wong et al.'s barrier experiment).
class BarrierProbe final : public Probe {
 public:
  BarrierProbe() : Probe("barriers", {}) {
    declare({}, {compute(keys::syncthreadsLatency), compute(keys::syncthreadsBlockLatency)});
  }

  void run(Context& ctx) override {
    const auto warps = barrier_warp_counts(ctx.info());
    std::vector<device::ComputeRequest> items;
    for (const std::uint32_t w : warps)
      items.push_back({device::ComputeOp::BarSync, kLatencyShortSteps, 1, w, 1, std::nullopt});
    std::string why;
    const auto result = run_compute_batch(
        ctx, two_length_batch(items, kPipelineRepeats, kLatencyShortSteps, kLatencyLongSteps), why);
    if (!result) return unavailable(ctx, why);
    const device::ComputeBatchResult& r = *result;
    std::vector<Slope> slopes;
    model::Json table = model::Json::array();
    for (std::size_t k = 0; k < warps.size(); ++k) {
      slopes.push_back(
          item_slope(r, k, warps.size(), kPipelineRepeats, kLatencyShortSteps, kLatencyLongSteps));
      const Slope& s = slopes.back();
      table.push_back({{"warps", warps[k]},
                       {"cycles", s.value},
                       {"lo", s.lo},
                       {"hi", s.hi},
                       {"confidence", s.confidence}});
    }
    const model::Json evidence = {{"op", "barSync"}, {"byWarps", table}};
    ctx.put_compute(model::keys::syncthreadsLatency,
                    attribute(slopes.front(), warps.front(), evidence));
    ctx.put_compute(model::keys::syncthreadsBlockLatency,
                    attribute(slopes.back(), warps.back(), evidence));
  }

 private:
  static model::Attribute attribute(const Slope& s, std::uint32_t warps,
                                    const model::Json& evidence) {
    auto a = model::Attribute::measured(
        s.value, "cycles", std::string(kBarrierMethod) + "; " + std::to_string(warps) + " warps",
        s.confidence);
    a.interval = model::Interval{s.lo, s.hi};
    a.evidence = evidence;
    return a;
  }

  static void unavailable(Context& ctx, const std::string& why) {
    for (const auto* key :
         {&model::keys::syncthreadsLatency, &model::keys::syncthreadsBlockLatency})
      ctx.put_compute(*key, model::Attribute::unavailable(model::Source::Measured, "cycles", why));
  }
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Compute, 50, Made::Once,
                       [](const Site&) { return std::make_unique<BarrierProbe>(); });

}  // namespace gputopo::discovery
