#include <algorithm>
#include <cmath>

#include "analysis/spread.hpp"
#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/l2_dram_probes.hpp"
#include "discovery/l2_sweep.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kElements = 512;
constexpr std::uint32_t kLoads = 8 * device::kChainSegmentLoads;

// The near-hit latency of every SM: one small warm L2 chain per SM, all in one batch (the backend
// runs them one after another), each timed in segments. Per SM: the median over its segments and
// its standard error. The value is the spread between SMs with the noise taken out
// (analysis::spread_of_means); the per-SM means and their standard error are the evidence the
// layout probe tests SM groupings against.
class L2SmLatencyProbe final : public Probe {
 public:
  explicit L2SmLatencyProbe(std::vector<std::string> needs)
      : Probe("l2.smLatency", {"l2"}, std::move(needs)) {}

  void run(Context& ctx) override {
    const int sms = ctx.info().sm_count;
    if (sms < 1) return fail(ctx, "the driver reports no SMs");
    std::vector<std::string> weaker;
    const std::uint32_t stride =
        chain_stride(device::Space::L2, fetch_granularity_or(ctx, l2_target(), 32, weaker));
    const std::uint64_t bytes = std::uint64_t{stride} * kElements;
    device::ChaseBatch batch;
    for (int sm = 0; sm < sms; ++sm) {
      auto r = chain_request(device::Space::L2, bytes, stride, 1, kLoads);
      r.sm = sm;
      batch.requests.push_back(r);
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);

    std::vector<double> centre(static_cast<std::size_t>(sms), std::nan(""));
    std::vector<double> means;
    std::vector<double> errors;
    std::vector<int> measured_sm;
    for (const auto& r : result.results) {
      const auto segments = segment_latencies(r);
      if (r.sm < 0 || r.sm >= sms || segments.size() < 2) continue;
      // Median and robust standard error: a rare slow load spoils one segment, not the SM.
      const double m = analysis::median(segments);
      centre[static_cast<std::size_t>(r.sm)] = m;
      means.push_back(m);
      errors.push_back(1.2533 * analysis::robust_sd(segments) /
                       std::sqrt(static_cast<double>(segments.size())));
      measured_sm.push_back(r.sm);
    }
    if (means.size() < 2) return fail(ctx, "fewer than two SMs returned a near-hit chain");
    const auto spread = analysis::spread_of_means(means, errors);
    const double se = analysis::median(errors);
    // Confidence: how well the spread is resolved (interval narrow against the value or the noise).
    const double width = spread.hi - spread.lo;
    const double confidence =
        std::clamp(1.0 - width / std::max(spread.value + 4 * se, 1e-9), 0.0, 1.0);
    auto a = model::Attribute::measured(
        spread.value, "cycles",
        "warm dependent chain on the L2 space (" + std::to_string(bytes) + " B at " +
            std::to_string(stride) + " B stride, " + std::to_string(kLoads) +
            " loads in segments) on every SM; spread of the per-SM latencies with the "
            "measurement noise taken out (means shrunk by their standard errors)",
        confidence);
    a.interval = model::Interval{spread.lo, spread.hi};
    model::Json per_sm = model::Json::array();
    for (double c : centre) per_sm.push_back(std::isnan(c) ? model::Json() : model::Json(c));
    a.evidence = {{"rawRange", spread.raw},
                  {"betweenSmSd", spread.between_sd},
                  {"fastestSm", measured_sm[spread.argmin]},
                  {"slowestSm", measured_sm[spread.argmax]},
                  {"median", analysis::median(means)},
                  {"standardError", se},
                  {"smsMeasured", means.size()},
                  {"perSm", per_sm}};
    a.reason = join(weaker);
    ctx.put("l2", "nearLatencyBySm", std::move(a));
  }

 private:
  static void fail(Context& ctx, const std::string& why) {
    ctx.put("l2", "nearLatencyBySm",
            model::Attribute::unavailable(model::Source::Measured, "cycles", why));
  }
};

}  // namespace

std::unique_ptr<Probe> make_l2_sm_latency_probe(std::vector<std::string> needs) {
  return std::make_unique<L2SmLatencyProbe>(std::move(needs));
}

}  // namespace gputopo::discovery
