#include <algorithm>

#include "analysis/inference.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// A small warm array read through L1 (ld.global.ca) and through L2 only (ld.global.cg): if the
// L1 reads are not significantly faster, global loads are not cached in L1 on this GPU.
class L1CachedProbe final : public Probe {
 public:
  explicit L1CachedProbe(const Target& t) : Probe(probe_name(t, "cached"), {t.element}), t_(t) {
    declare({}, {{t.element, &keys::globalLoadsCached}, {t.element, &keys::carveout}});
  }

  void run(Context& ctx) override {
    constexpr std::uint64_t kBytes = 4096;
    constexpr std::uint32_t kStride = 32;
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    batch.requests.push_back(chase_request(t_.space, kBytes, kStride, 2, 512));
    batch.requests.push_back(chase_request(device::Space::L2, kBytes, kStride, 2, 512));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    record_carveout(ctx, t_, result.conditions);
    const auto through_l1 = latencies(result.results[0]);
    const auto l2_only = latencies(result.results[1]);
    // "Does bypassing L1 disturb the loads?" with the L1 loads as the reference.
    const auto d = analysis::disturbance_test(through_l1, l2_only);
    const double confidence = d.disturbed ? 1.0 - d.p_value : 1.0 - std::clamp(d.effect, 0.0, 1.0);
    auto a = model::Attribute::measured(d.disturbed, "", "ld.global.ca vs ld.global.cg latency",
                                        confidence);
    a.evidence = {
        {"medianRatioCgToCa", d.median_ratio}, {"pValue", d.p_value}, {"arrayBytes", kBytes}};
    ctx.put(t_.element, keys::globalLoadsCached, std::move(a));
  }

 private:
  Target t_;
};

}  // namespace

// Global loads through L1 against L2-only loads -> are global loads cached in L1
//.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 10, Made::PerTarget,
                       [](const Site& s) -> std::unique_ptr<Probe> {
                         if (s.target->space != device::Space::L1) return nullptr;
                         return std::make_unique<L1CachedProbe>(*s.target);
                       });

}  // namespace gputopo::discovery
