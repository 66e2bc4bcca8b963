#include <algorithm>

#include "analysis/cluster.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes.hpp"

namespace gputopo::discovery {
namespace {

constexpr int kSms = 4;

// Hit latency: a warm chase over an array well inside the cache, on a few SMs at once. A level-2
// target chases an array that overflows the level in front of it (each load a new line there) but
// fits its own capacity.
class LatencyProbe final : public Probe {
 public:
  LatencyProbe(const Target& t, std::vector<std::string> needs)
      : Probe(probe_name(t, "latency"), {t.element}, std::move(needs)), t_(t) {}

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put(t_.element, "latency",
              model::Attribute::unavailable(model::Source::Measured, "cycles", why));
    };
    if (auto why = gate(ctx, t_)) return fail(*why);
    std::vector<std::string> weaker;
    std::uint32_t stride = fetch_granularity_or(ctx, t_, 32, weaker);
    const Input size = ctx.input(t_.element, "size");
    std::uint64_t bytes = 0;
    if (t_.level == 1) {
      if (size) {
        bytes = std::max<std::uint64_t>(stride * 16, static_cast<std::uint64_t>(*size.value / 4));
      } else {
        bytes = std::uint64_t{stride} * 16;
        weaker.push_back(size.why + "; used a " + std::to_string(bytes) + " B array");
      }
      bytes = std::min<std::uint64_t>(bytes, 64 * 1024);
    } else {
      const Input inner = ctx.input(t_.inner, "size");
      if (!inner) return fail("needs the size of " + t_.inner + ": " + inner.why);
      const Input inner_line = ctx.input(t_.inner, "lineSize");
      const Input inner_fg = ctx.input(t_.inner, "fetchGranularity");
      stride = static_cast<std::uint32_t>(inner_line ? *inner_line.value
                                                     : (inner_fg ? *inner_fg.value : 64.0));
      if (!inner_line)
        weaker.push_back(t_.inner + " line size not established; stride " + std::to_string(stride) +
                         " B");
      bytes = round_up(static_cast<std::uint64_t>(*inner.value * 2), stride);
      if (size.value) bytes = std::min(bytes, static_cast<std::uint64_t>(*size.value * 0.75));
    }
    if (t_.space_limit_bytes) bytes = std::min(bytes, t_.space_limit_bytes);

    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    const int sms = std::min(kSms, std::max(ctx.info().sm_count, 1));
    for (int i = 0; i < sms; ++i)
      batch.requests.push_back(chase_request(t_.space, bytes, stride, 2, 1024));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    record_carveout(ctx, t_, result.conditions);
    const auto sample = pooled_latencies(result);
    double overhead = 0;
    for (const auto& r : result.results) overhead = std::max(overhead, r.overhead_cycles);

    // Confidence: the share of loads at the dominant (hit) level.
    const auto levels = analysis::cluster_levels(sample);
    const double confidence = levels.levels.empty() ? 0.0 : levels.levels.front().weight;
    const std::string method = "pchase-latency, median of " + std::to_string(sample.size()) +
                               " timed loads on " + std::to_string(sms) + " SMs, " +
                               std::to_string(bytes) + " B array at " + std::to_string(stride) +
                               " B stride, timing overhead subtracted";
    put_latency(ctx, t_.element, "latency", sample, overhead, result.conditions, method, confidence,
                join(weaker));
  }

 private:
  Target t_;
};

}  // namespace

std::unique_ptr<Probe> make_latency_probe(const Target& t, std::vector<std::string> needs) {
  return std::make_unique<LatencyProbe>(t, std::move(needs));
}

}  // namespace gputopo::discovery
