#include <algorithm>
#include <cmath>

#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/l2_dram_probes.hpp"
#include "discovery/l2_sweep.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kLoads = 512;

// The near-hit latency of every SM: one small warm L2 chase per SM, all in one batch (the backend
// runs them one after another). The value is the spread (slowest minus fastest SM); the per-SM
// centres (10 % trimmed means of the hit level) and their standard error are the evidence the
// layout probe tests SM groupings against.
class L2SmLatencyProbe final : public Probe {
 public:
  explicit L2SmLatencyProbe(std::vector<std::string> needs)
      : Probe("l2.smLatency", {"l2"}, std::move(needs)) {}

  void run(Context& ctx) override {
    const int sms = ctx.info().sm_count;
    if (sms < 1) {
      ctx.put("l2", "nearLatencyBySm",
              model::Attribute::unavailable(model::Source::Measured, "cycles",
                                            "the driver reports no SMs"));
      return;
    }
    std::vector<std::string> weaker;
    const std::uint32_t stride = fetch_granularity_or(ctx, l2_target(), 32, weaker);
    device::ChaseBatch batch;
    for (int sm = 0; sm < sms; ++sm)
      batch.requests.push_back(l2_chase(std::uint64_t{stride} * kLoads, stride, 1, kLoads, sm));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);

    std::vector<double> centre(static_cast<std::size_t>(sms), std::nan(""));
    std::vector<double> spreads;
    double weight = 1;
    for (const auto& r : result.results) {
      if (r.sm < 0 || r.sm >= sms) continue;
      const auto level = dominant_level(latencies(r));
      if (level.samples.size() < 2) continue;
      weight = std::min(weight, level.weight);
      centre[static_cast<std::size_t>(r.sm)] = analysis::trimmed_mean(level.samples, 0.1);
      spreads.push_back(analysis::robust_sd(level.samples) /
                        std::sqrt(static_cast<double>(level.samples.size())));
    }
    std::vector<double> measured;
    int lo = -1;
    int hi = -1;
    for (int sm = 0; sm < sms; ++sm) {
      const double c = centre[static_cast<std::size_t>(sm)];
      if (std::isnan(c)) continue;
      measured.push_back(c);
      if (lo < 0 || c < centre[static_cast<std::size_t>(lo)]) lo = sm;
      if (hi < 0 || c > centre[static_cast<std::size_t>(hi)]) hi = sm;
    }
    if (measured.empty()) {
      ctx.put("l2", "nearLatencyBySm",
              model::Attribute::unavailable(model::Source::Measured, "cycles",
                                            "no SM returned a near-hit sample"));
      return;
    }
    const double se = analysis::median(spreads) * 1.2533;
    const double spread =
        centre[static_cast<std::size_t>(hi)] - centre[static_cast<std::size_t>(lo)];
    auto a = model::Attribute::measured(
        spread, "cycles",
        "warm pchase on the L2 space (" + std::to_string(stride * kLoads) + " B at " +
            std::to_string(stride) +
            " B stride) on every SM; slowest minus fastest SM's trimmed-mean near-hit latency",
        weight);
    model::Json per_sm = model::Json::array();
    for (double c : centre) per_sm.push_back(std::isnan(c) ? model::Json() : model::Json(c));
    a.evidence = {{"min", centre[static_cast<std::size_t>(lo)]},
                  {"minSm", lo},
                  {"max", centre[static_cast<std::size_t>(hi)]},
                  {"maxSm", hi},
                  {"median", analysis::median(measured)},
                  {"standardError", se},
                  {"smsMeasured", measured.size()},
                  {"perSm", per_sm}};
    a.reason = join(weaker);
    ctx.put("l2", "nearLatencyBySm", std::move(a));
  }
};

}  // namespace

std::unique_ptr<Probe> make_l2_sm_latency_probe(std::vector<std::string> needs) {
  return std::make_unique<L2SmLatencyProbe>(std::move(needs));
}

}  // namespace gputopo::discovery
