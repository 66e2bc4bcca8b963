#include <algorithm>
#include <optional>

#include "analysis/inference.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr const char* kMethod = "cold-stride-sweep";
constexpr const char* kSectorMethod =
    "cold-stride-sweep with cudaLimitMaxL2FetchGranularity at its minimum";
constexpr std::size_t kShownChars = 120;  // of a device error quoted in a reason

struct FetchSweep {
  analysis::Estimate estimate;
  std::vector<std::uint32_t> strides;
  device::RunConditions conditions;
};

// Cold pass over strides 4 B .. 1 KiB: a load misses exactly when it reaches a granule not fetched
// yet, so the miss fraction is min(1, stride / granularity). For a level-2 target the strides
// start at the level-1 granularity, so that every load passes the level in front.
//
// For the L2 (the target whose loads reach L2 first) the sweep runs twice: under the driver's
// L2 fetch-granularity limit (-> fetchGranularity) and with the limit requested at 0, which the
// driver raises to the smallest fetch it supports: one sector (-> sectorSize).
class FetchProbe final : public Probe {
 public:
  explicit FetchProbe(const Target& t) : Probe(probe_name(t, "fetch"), {t.element}), t_(t) {
    declare({{t.element, &keys::globalLoadsCached}, {t.inner, &keys::fetchGranularity}},
            {{t.element, &keys::fetchGranularity},
             {t.element, &keys::sectorSize},
             {t.element, &keys::carveout}});
  }

  void run(Context& ctx) override {
    const bool l2 = t_.space == device::Space::L2 && t_.level == 1;
    if (auto why = gate(ctx, t_)) {
      ctx.put(t_.element, keys::fetchGranularity,
              model::Attribute::unavailable(model::Source::Measured, "B", *why));
      if (l2)
        ctx.put(t_.element, keys::sectorSize,
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
    ctx.expect_batches(l2 ? 2 : 1);
    const FetchSweep fetch = sweep(ctx, first, std::nullopt);
    record_carveout(ctx, t_, fetch.conditions);
    auto a = attribute(fetch, kMethod, weaker);
    if (t_.level > 1 && !a.available())
      a.reason += "; the strides start at the " + t_.inner + " granularity (" +
                  std::to_string(first) + " B), below which " + t_.inner +
                  " serves the loads: a fetch under it cannot be seen";
    if (l2 && fetch.conditions.l2_fetch_limit_bytes)
      a.evidence["l2FetchLimitBytes"] = *fetch.conditions.l2_fetch_limit_bytes;
    ctx.put(t_.element, keys::fetchGranularity, std::move(a));
    if (l2) ctx.put(t_.element, keys::sectorSize, sector_size(ctx, first, fetch, weaker));
  }

 private:
  FetchSweep sweep(Context& ctx, std::uint32_t first, std::optional<std::uint32_t> l2_limit) const {
    constexpr std::uint32_t kLoads = 256;
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    batch.l2_fetch_limit_bytes = l2_limit;
    FetchSweep s;
    for (std::uint32_t stride = std::max<std::uint32_t>(first, 4); stride <= 1024; stride *= 2) {
      std::uint64_t bytes = std::uint64_t{stride} * kLoads;
      if (t_.space_limit_bytes) bytes = std::min(bytes, t_.space_limit_bytes);
      if (bytes / stride < 16) break;
      auto r = chase_request(t_.space, bytes, stride, 0, kLoads);
      r.recorded_loads =
          static_cast<std::uint32_t>(std::min<std::uint64_t>(kLoads, bytes / stride));
      batch.requests.push_back(r);
      s.strides.push_back(stride);
    }
    const auto result = ctx.chase(batch);
    std::vector<analysis::SweepPoint> points;
    for (std::size_t i = 0; i < s.strides.size(); ++i)
      points.push_back({static_cast<double>(s.strides[i]), latencies(result.results[i])});
    s.estimate = analysis::fetch_granularity(points);
    s.conditions = result.conditions;
    return s;
  }

  static model::Attribute attribute(const FetchSweep& s, const std::string& method,
                                    std::vector<std::string> weaker) {
    const auto& e = s.estimate;
    model::Attribute a;
    if (e.established) {
      a = model::Attribute::measured(e.value, "B", method, e.confidence);
      a.interval = model::Interval{e.lo, e.hi};
    } else {
      a = model::Attribute::unavailable(model::Source::Measured, "B", e.reason);
      a.method = method;
      a.confidence = e.confidence;
    }
    weaker.push_back(e.reason);
    weaker.erase(std::remove(weaker.begin(), weaker.end(), std::string{}), weaker.end());
    if (e.established) a.reason = join(weaker);
    a.evidence = {{"strides", s.strides}};
    return a;
  }

  // The fetch granularity with the L2 limit at its minimum. The fetch never goes below a sector,
  // so this is the sector size where the driver honours the limit; where the fetch stays above
  // the limit it read back, the value is only an upper bound and says so. A device that replays
  // an older recording without this batch answers BadRequest: the size is then not measured.
  model::Attribute sector_size(Context& ctx, std::uint32_t first, const FetchSweep& fetch,
                               const std::vector<std::string>& weaker) const {
    auto none = [](const std::string& why) {
      auto a = model::Attribute::unavailable(model::Source::Measured, "B", why);
      a.method = kSectorMethod;
      return a;
    };
    FetchSweep s;
    try {
      s = sweep(ctx, first, 0);
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      std::string why = e.what();
      if (why.size() > kShownChars) why = why.substr(0, kShownChars) + "...";
      return none("the device could not run the sweep with an L2 fetch limit: " + why);
    }
    const auto applied = s.conditions.l2_fetch_limit_bytes;
    if (!applied)
      return none(
          "the backend cannot set cudaLimitMaxL2FetchGranularity, so the fetch cannot be lowered "
          "to one sector");
    auto a = attribute(s, kSectorMethod, weaker);
    a.evidence["l2FetchLimitBytes"] = *applied;
    a.evidence["requestedLimitBytes"] = 0;
    if (fetch.conditions.l2_fetch_limit_bytes)
      a.evidence["defaultLimitBytes"] = *fetch.conditions.l2_fetch_limit_bytes;
    if (a.available() && s.estimate.value > *applied) {
      const std::string note = "with the limit at " + std::to_string(*applied) +
                               " B the L2 still fetched this much: its smallest fetch, taken as "
                               "the sector (no sector is larger)";
      a.reason = a.reason.empty() ? note : a.reason + "; " + note;
    }
    return a;
  }

  Target t_;
};

}  // namespace

// Cold stride sweep -> fetch granularity.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 20, Made::PerTarget,
                       [](const Site& s) { return std::make_unique<FetchProbe>(*s.target); });
// The L2's fetch granularity, first of the L2's probes.
GPUTOPO_REGISTER_PROBE(Family::L2, 10, Made::Once,
                       [](const Site&) { return std::make_unique<FetchProbe>(l2_target()); });

}  // namespace gputopo::discovery
