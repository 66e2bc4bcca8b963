#include <algorithm>

#include "analysis/inference.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes.hpp"

namespace gputopo::discovery {
namespace {

// One array a quarter larger than the cache, chased at strides from the fetch granularity up:
// while the stride is below the line size every line is touched and the array misses; a larger
// stride touches array/stride lines, which fit once stride >= line * array / cache.
class LineProbe final : public Probe {
 public:
  LineProbe(const Target& t, std::vector<std::string> needs)
      : Probe(probe_name(t, "line"), {t.element}, std::move(needs)), t_(t) {}

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put(t_.element, "lineSize",
              model::Attribute::unavailable(model::Source::Measured, "B", why));
    };
    if (auto why = gate(ctx, t_)) return fail(*why);
    const Input size = ctx.input(t_.element, t_.size_key);
    if (!size) return fail("needs the cache size: " + size.why);
    std::vector<std::string> weaker;
    const std::uint32_t fg = fetch_granularity_or(ctx, t_, 32, weaker);

    const double cache = *size.value;
    std::uint64_t array = round_up(static_cast<std::uint64_t>(cache * 1.25), fg);
    if (t_.space_limit_bytes) array = std::min(array, t_.space_limit_bytes);
    if (static_cast<double>(array) <= cache)
      return fail("the space cannot hold an array larger than the cache");
    // Strides up to 2 KiB (lines up to 1 KiB), at least 8 elements per array, one point per SM.
    const std::uint64_t max_stride = std::min<std::uint64_t>(2048, array / 8);
    const std::size_t points = static_cast<std::size_t>(std::max(ctx.info().sm_count, 16));
    // Fine steps resolve stride = line * array / cache, which lies between two multiples of fg.
    const std::uint64_t step = std::max<std::uint64_t>(4, round_up(max_stride / points, 4));

    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    std::vector<std::uint64_t> strides;
    for (std::uint64_t s = fg; s <= max_stride; s += step) {
      batch.requests.push_back(
          chase_request(t_.space, array, static_cast<std::uint32_t>(s), 1, 1024));
      strides.push_back(s);
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    record_carveout(ctx, t_, result.conditions);
    std::vector<analysis::SweepPoint> sweep;
    for (std::size_t i = 0; i < strides.size(); ++i)
      sweep.push_back({static_cast<double>(strides[i]), latencies(result.results[i])});
    const auto e = analysis::line_size(sweep, static_cast<double>(array), cache);

    model::Attribute a;
    if (e.established) {
      a = model::Attribute::measured(e.value, "B", "stride-sweep-past-capacity", e.confidence);
      a.interval = model::Interval{e.lo, e.hi};
      weaker.push_back(e.reason);
      weaker.erase(std::remove(weaker.begin(), weaker.end(), std::string{}), weaker.end());
      a.reason = join(weaker);
    } else {
      a = model::Attribute::unavailable(model::Source::Measured, "B", e.reason);
      a.method = "stride-sweep-past-capacity";
      a.confidence = e.confidence;
    }
    a.evidence = {{"arrayBytes", array},
                  {"cacheBytes", cache},
                  {"strides", {strides.front(), strides.back()}},
                  {"points", strides.size()}};
    ctx.put(t_.element, "lineSize", std::move(a));
  }

 private:
  Target t_;
};

}  // namespace

std::unique_ptr<Probe> make_line_probe(const Target& t, std::vector<std::string> needs) {
  return std::make_unique<LineProbe>(t, std::move(needs));
}

}  // namespace gputopo::discovery
