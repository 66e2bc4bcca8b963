#include <algorithm>
#include <cmath>

#include "analysis/clean_level.hpp"
#include "analysis/spread.hpp"
#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kElements = 512;
constexpr std::uint32_t kSmLoads = 8 * device::kChainSegmentLoads;

// The near-hit latency of every SM: one small warm L2 chain per SM, all in one batch (the backend
// runs them one after another), each timed in segments. Per SM: the mean of its clean segments
// (analysis::clean_level) and its standard error. The value is the spread between SMs with the
// noise taken out (analysis::split_half_spread over the even and the odd segments); the per-SM
// values and their standard error are the evidence the layout probe tests SM groupings against.
// Independent half-means of each SM: its even and its odd segments.
struct Halves {
  std::vector<double> first;
  std::vector<double> second;
  std::vector<double> se;
  // `sd`: the spread of one clean segment.
  void add(const std::vector<double>& segments, double sd) {
    std::vector<double> even;
    std::vector<double> odd;
    for (std::size_t i = 0; i < segments.size(); ++i) (i % 2 ? odd : even).push_back(segments[i]);
    first.push_back(analysis::clean_level(even).level);
    second.push_back(analysis::clean_level(odd).level);
    se.push_back(sd / std::sqrt(static_cast<double>(segments.size() / 2)));
  }
};

class L2SmLatencyProbe final : public Probe {
 public:
  L2SmLatencyProbe() : Probe("l2.smLatency", {"l2"}) {
    declare({{"l2", &keys::fetchGranularity}}, {{"l2", &keys::nearLatencyBySm}});
  }

  void run(Context& ctx) override {
    const int sms = ctx.info().sm_count();
    if (sms < 1) return fail(ctx, "the driver reports no SMs");
    std::vector<std::string> weaker;
    const std::uint32_t stride =
        chain_stride(device::Space::L2, fetch_granularity_or(ctx, l2_target(), 32, weaker));
    const std::uint64_t bytes = std::uint64_t{stride} * kElements;
    device::ChaseBatch batch;
    for (int sm = 0; sm < sms; ++sm) {
      auto r = chain_request(device::Space::L2, bytes, stride, 1, kSmLoads);
      r.sm = sm;
      batch.requests.push_back(r);
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);

    std::vector<double> centre(static_cast<std::size_t>(sms), std::nan(""));
    std::vector<double> means;
    std::vector<double> errors;
    Halves halves;
    std::vector<int> measured_sm;
    for (const auto& r : result.results) {
      const auto segments = segment_latencies(r);
      if (r.sm < 0 || r.sm >= sms || segments.size() < 4) continue;
      // Means of the clean segments: a rare slow load spoils one segment, not the SM.
      const auto clean = analysis::clean_level(segments);
      const double sd = clean.sd;
      const double m = clean.level;
      centre[static_cast<std::size_t>(r.sm)] = m;
      means.push_back(m);
      errors.push_back(sd / std::sqrt(static_cast<double>(segments.size())));
      halves.add(segments, sd);
      measured_sm.push_back(r.sm);
    }
    if (means.size() < 2) return fail(ctx, "fewer than two SMs returned a near-hit chain");
    const auto spread = analysis::split_half_spread(halves.first, halves.second, halves.se);
    const double se = analysis::median(errors);
    // Confidence: how well the spread is resolved (interval narrow against the value or the noise).
    const double width = spread.hi - spread.lo;
    const double confidence =
        std::clamp(1.0 - width / std::max(spread.value + 4 * se, 1e-9), 0.0, 1.0);
    auto a = model::Attribute::measured(
        std::max(spread.value, 0.0), "cycles",
        "warm dependent chain on the L2 space (" + std::to_string(bytes) + " B at " +
            std::to_string(stride) + " B stride, " + std::to_string(kSmLoads) +
            " loads in segments) on every SM; slowest minus fastest SM, the two picked with one "
            "half of each SM's segments and measured with the other (both ways round), so that "
            "the noise does not widen it",
        confidence);
    // The spread's 90 % interval (1.645 standard errors) as a repeat run's 95 % (1.96 x sqrt 2).
    const double half = (spread.hi - spread.lo) / 2 * 1.959964 * std::sqrt(2.0) / 1.644854;
    a.interval =
        model::Interval{std::max(spread.value - half, 0.0), std::max(spread.value + half, 0.0)};
    model::Json per_sm = model::Json::array();
    for (double c : centre) per_sm.push_back(std::isnan(c) ? model::Json() : model::Json(c));
    a.evidence = {{"rawRange", spread.raw},
                  {"fastestSm", measured_sm[spread.argmin]},
                  {"slowestSm", measured_sm[spread.argmax]},
                  {"median", analysis::median(means)},
                  {"standardError", se},
                  {"smsMeasured", means.size()},
                  {"perSm", per_sm}};
    a.reason = join(weaker);
    ctx.put("l2", keys::nearLatencyBySm, std::move(a));
  }

 private:
  static void fail(Context& ctx, const std::string& why) {
    ctx.put("l2", keys::nearLatencyBySm,
            model::Attribute::unavailable(model::Source::Measured, "cycles", why));
  }
};

}  // namespace

// Near-hit latency on every SM, one request per SM.
GPUTOPO_REGISTER_PROBE(Family::L2, 60, Made::Once,
                       [](const Site&) { return std::make_unique<L2SmLatencyProbe>(); });

}  // namespace gputopo::discovery
