#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "analysis/cluster.hpp"
#include "analysis/inference.hpp"
#include "analysis/line_fit.hpp"
#include "analysis/line_sweeps.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

using analysis::FootprintCurve;
using analysis::LineFit;
using analysis::StrideCurve;

// The swept array exceeds the cache by these factors; it fits once stride >= factor * line.
constexpr double kOversizes[] = {1.5, 2.5};

// Strides swept: all (from half the fetch granularity to 4 KiB), or a narrower range.
struct StrideRange {
  std::uint64_t from = 0;
  std::uint64_t to = 4096;
};

// One array half again as large as the cache, chased at strides from the fetch granularity up:
// while the stride is below the line size every line is touched and the array misses; a larger
// stride touches array/stride lines, which fit once stride >= line * array / cache.
class LineProbe final : public Probe {
 public:
  LineProbe(const Target& t, std::vector<Target> one_cache_with)
      : Probe(probe_name(t, "line"), {t.element}), t_(t), with_(std::move(one_cache_with)) {
    std::vector<Finding> reads = {{t.element, &keys::globalLoadsCached},
                                  {t.element, &keys::fetchGranularity},
                                  {t.element, &keys::size}};
    for (const Target& w : with_) reads.push_back({w.element, &keys::lineSize});
    declare(std::move(reads), {{t.element, &keys::lineSize}, {t.element, &keys::carveout}});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put(t_.element, keys::lineSize,
              model::Attribute::unavailable(model::Source::Measured, "B", why));
    };
    if (auto why = gate(ctx, t_)) return fail(*why);
    const Input size = ctx.input(t_.element, keys::size);
    if (!size) return fail("needs the cache size: " + size.why);
    std::vector<std::string> weaker;
    const std::uint32_t fg = fetch_granularity_or(ctx, t_, 32, weaker);

    const double cache = *size.value;
    model::Json one_cache;
    if (one_cache_line(ctx, cache, fg, one_cache)) return;
    model::Json sweeps = model::Json::array();
    std::vector<Raw> raws;
    std::vector<analysis::Estimate> readings;
    // A first sweep with the array half again as large as the cache; where per-set crowding in a
    // low-associativity cache leaves its interval ambiguous, a second sweep with a larger array
    // gives an independent interval: the line size is the power of two in both, and where they
    // share none the sweeps contradict each other and neither is trusted.
    for (const double oversize : kOversizes) {
      const auto one = sweep_once(ctx, cache, fg, oversize, sweeps, raws);
      if (!one) continue;
      readings.push_back(*one);
      if (one->established && one->confidence >= 0.9) break;
    }
    std::optional<analysis::Estimate> e;
    if (!readings.empty()) e = analysis::combine_line_sweeps(readings, fg);
    if (!e) return fail("the space cannot hold an array large enough for a stride sweep");
    model::Json fit_json;
    if (!e->established || e->confidence < 0.9) {
      // Misses that set in gradually (hashed sets, non-LRU replacement) give no clean step:
      // explain the stride curves by the cache's own footprint curve instead.
      if (const auto fit = fit_with_footprint(ctx, cache, fg, raws, fit_json);
          fit && fit->confidence > (e->established ? e->confidence : 0.0)) {
        e->established = fit->confidence >= kEstablished;
        e->value = fit->line;
        e->lo = fit->line;
        e->hi = fit->line;
        e->confidence = fit->confidence;
        e->reason = "fit of the stride curves to the footprint curve (no clean step)";
      }
    }

    model::Attribute a;
    if (e->established) {
      a = model::Attribute::measured(e->value, "B", "stride-sweep-past-capacity", e->confidence);
      a.interval = model::Interval{e->lo, e->hi};
      weaker.push_back(e->reason);
      weaker.erase(std::remove(weaker.begin(), weaker.end(), std::string{}), weaker.end());
      a.reason = join(weaker);
    } else {
      a = model::Attribute::unavailable(model::Source::Measured, "B", e->reason);
      a.method = "stride-sweep-past-capacity";
      a.confidence = e->confidence;
    }
    a.evidence = {{"cacheBytes", cache}, {"sweeps", sweeps}};
    if (!fit_json.is_null()) a.evidence["footprintFit"] = fit_json;
    if (!one_cache.is_null()) a.evidence["oneCacheWith"] = one_cache;
    ctx.put(t_.element, keys::lineSize, std::move(a));
  }

 private:
  // One stride sweep over an array `oversize` times the cache; nullopt where the space cannot
  // hold it or it is too small for a sweep.
  struct Raw {
    double array_bytes = 0;
    std::vector<analysis::SweepPoint> points;
  };

  // Where this view's size was confirmed as one physical cache with a view of `with_` (its size
  // evidence) and that view's line L is established, one sweep of strides from L/2 to 2.5 L (the
  // change sits at 1.5 L) must read L too; then this view takes that view's line and returns true.
  // Otherwise `check` says why, and the full sweeps run.
  bool one_cache_line(Context& ctx, double cache, std::uint32_t fg, model::Json& check) {
    const model::Attribute* size = ctx.get(t_.element, keys::size);
    if (!size || !size->evidence.is_object()) return false;
    const auto found = size->evidence.find("oneCacheWith");
    if (found == size->evidence.end() || !found->is_object() || !found->value("confirmed", false))
      return false;
    const std::string view = found->value("view", "");
    if (std::none_of(with_.begin(), with_.end(),
                     [&](const Target& w) { return w.element == view; }))
      return false;
    check = {{"view", view}};
    const model::Attribute* other = ctx.get(view, keys::lineSize);
    const Input line = ctx.input(view, keys::lineSize);
    if (!line || !other) {
      check["reason"] = "its line is not established";
      return false;
    }
    model::Json sweeps = model::Json::array();
    std::vector<Raw> raws;
    const auto e = sweep_once(ctx, cache, fg, kOversizes[0], sweeps, raws,
                              {static_cast<std::uint64_t>(*line.value / 2),
                               static_cast<std::uint64_t>(*line.value * 2.5)});
    check["sweeps"] = sweeps;
    if (!e || !e->established || e->value != *line.value) {
      check["reason"] = "the strides around 1.5 x its line do not read the same line";
      return false;
    }
    model::Attribute a = *other;
    a.confidence = std::min(other->confidence.value_or(0.0), e->confidence);
    a.method = other->method + " of " + view + ", confirmed on this view";
    a.evidence = {{"cacheBytes", cache}, {"oneCacheWith", check}};
    ctx.put(t_.element, keys::lineSize, std::move(a));
    return true;
  }

  std::optional<analysis::Estimate> sweep_once(Context& ctx, double cache, std::uint32_t fg,
                                               double oversize, model::Json& sweeps,
                                               std::vector<Raw>& raws, StrideRange range = {}) {
    std::uint64_t array = round_up(static_cast<std::uint64_t>(cache * oversize), fg);
    if (t_.space_limit_bytes) array = std::min(array, t_.space_limit_bytes);
    if (static_cast<double>(array) <= cache * 1.25) return std::nullopt;
    // Strides are odd multiples of a quarter of the fetch granularity: never a multiple of a line
    // (a power of two >= the granularity), so the touched lines spread over every set instead of
    // aliasing into a fraction of them. Up to 4 KiB (lines up to 1 KiB), 6 elements at least.
    const std::uint64_t base = std::max<std::uint64_t>(4, fg / 4);
    const std::uint64_t max_stride = std::min<std::uint64_t>(range.to, array / 6);
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    std::vector<std::uint64_t> strides;
    const std::uint64_t first = std::max<std::uint64_t>(fg / 2, range.from);
    for (std::uint64_t s = base * (first / base | 1); s <= max_stride; s += 2 * base) {
      batch.requests.push_back(
          chase_request(t_.space, array, static_cast<std::uint32_t>(s), 1, 1024, 512));
      batch.requests.back().sm =
          placed_sm(kSmsInTurn, batch.requests.size() - 1, ctx.info().sm_count());
      strides.push_back(s);
    }
    if (strides.size() < 4) return std::nullopt;
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    record_carveout(ctx, t_, result.conditions);
    std::vector<analysis::SweepPoint> sweep;
    for (std::size_t i = 0; i < strides.size(); ++i)
      sweep.push_back({static_cast<double>(strides[i]), latencies(result.results[i])});
    auto e = analysis::line_size(sweep, static_cast<double>(array), cache);
    raws.push_back({static_cast<double>(array), sweep});
    const auto reduced = analysis::reduce(sweep, analysis::Reduction::MissFraction);
    model::Json miss = model::Json::array();
    for (std::size_t i = 0; i < reduced.size(); ++i)
      miss.push_back({strides[i], std::round(reduced.row(i)[0] * 1000) / 1000});
    sweeps.push_back({{"arrayBytes", array},
                      {"strides", {strides.front(), strides.back()}},
                      {"points", strides.size()},
                      {"value", e.established ? model::Json(e.value) : model::Json()},
                      {"interval", {e.lo, e.hi}},
                      {"confidence", e.confidence},
                      {"missFractionByStride", miss}});
    return e;
  }

  // Miss fraction against footprint (stride fg, arrays from a quarter of the cache to the largest
  // swept array, on SMs in turn), then the line size whose prediction fits the stride sweeps best.
  std::optional<LineFit> fit_with_footprint(Context& ctx, double cache, std::uint32_t fg,
                                            const std::vector<Raw>& raws, model::Json& out) {
    if (raws.empty()) return std::nullopt;
    double largest = 0;
    for (const auto& r : raws) largest = std::max(largest, r.array_bytes);
    constexpr int kPoints = 64;
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    std::vector<double> sizes;
    for (int i = 0; i < kPoints; ++i) {
      const double b = cache * 0.25 + (largest - cache * 0.25) * i / (kPoints - 1);
      const auto bytes = round_up(static_cast<std::uint64_t>(b), fg);
      if (!sizes.empty() && static_cast<double>(bytes) <= sizes.back()) continue;
      batch.requests.push_back(chase_request(t_.space, bytes, fg, 1, 2048, 1024));
      batch.requests.back().sm =
          placed_sm(kSmsInTurn, batch.requests.size() - 1, ctx.info().sm_count());
      sizes.push_back(static_cast<double>(bytes));
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    std::vector<std::vector<double>> calib;
    for (const auto& r : result.results) calib.push_back(latencies(r));
    // One set of latency levels for all points, so that "miss" means the same everywhere.
    std::vector<std::span<const double>> all;
    for (const auto& c : calib) all.emplace_back(c);
    for (const auto& r : raws)
      for (const auto& p : r.points) all.emplace_back(p.samples);
    const auto levels = analysis::cluster_levels(std::span<const std::span<const double>>(all));
    FootprintCurve curve;
    for (std::size_t i = 0; i < calib.size(); ++i) {
      curve.bytes.push_back(sizes[i]);
      curve.miss.push_back(analysis::miss_fraction(calib[i], levels));
    }
    std::vector<StrideCurve> curves;
    for (const auto& r : raws) {
      StrideCurve c;
      c.array_bytes = r.array_bytes;
      for (const auto& p : r.points) {
        c.strides.push_back(p.x);
        c.miss.push_back(analysis::miss_fraction(p.samples, levels));
      }
      curves.push_back(std::move(c));
    }
    auto fit = analysis::fit_line_size(curve, curves, fg);
    if (fit) {
      out = {{"footprintPoints", sizes.size()},
             {"candidates", fit->candidates},
             {"squaredErrors", fit->errors},
             {"line", fit->line},
             {"confidence", fit->confidence}};
    }
    return fit;
  }

  Target t_;
  std::vector<Target> with_;
};

}  // namespace

// Stride sweep just past capacity -> line size. Where this view's size was
// confirmed as that of a view of `one_cache_with`, strides around that view's line confirm it
// first.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 40, Made::PerTarget,
                       [](const Site& s) -> std::unique_ptr<Probe> {
                         if (s.target->level != 1) return nullptr;
                         return std::make_unique<LineProbe>(*s.target,
                                                            one_cache_with(s.info, *s.target));
                       });

}  // namespace gputopo::discovery
