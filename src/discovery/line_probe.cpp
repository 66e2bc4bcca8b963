#include <algorithm>

#include "analysis/inference.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes.hpp"

namespace gputopo::discovery {
namespace {

// The swept array exceeds the cache by this factor; it fits once stride >= 1.2 * line.
constexpr double kOversize = 1.2;

// One array a fifth larger than the cache, chased at strides from the fetch granularity up:
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
    const Input size = ctx.input(t_.element, "size");
    if (!size) return fail("needs the cache size: " + size.why);
    std::vector<std::string> weaker;
    const std::uint32_t fg = fetch_granularity_or(ctx, t_, 32, weaker);

    const double cache = *size.value;
    std::uint64_t array = round_up(static_cast<std::uint64_t>(cache * kOversize), fg);
    if (t_.space_limit_bytes) array = std::min(array, t_.space_limit_bytes);
    if (static_cast<double>(array) <= cache)
      return fail("the space cannot hold an array larger than the cache");
    // Strides are odd multiples of a quarter of the fetch granularity: never a multiple of a line
    // (a power of two >= the granularity), so the touched lines spread over every set instead of
    // aliasing into a fraction of them. Up to 2 KiB (lines up to 1 KiB), 8 elements at least.
    const std::uint64_t base = std::max<std::uint64_t>(4, fg / 4);
    const std::uint64_t max_stride = std::min<std::uint64_t>(2048, array / 8);
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    std::vector<std::uint64_t> strides;
    for (std::uint64_t s = base * (fg / 2 / base | 1); s <= max_stride; s += 2 * base) {
      batch.requests.push_back(
          chase_request(t_.space, array, static_cast<std::uint32_t>(s), 1, 1024));
      strides.push_back(s);
    }
    if (strides.size() < 4) return fail("the array is too small for a stride sweep");
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
