#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"
#include "discovery/size_search.hpp"

namespace gputopo::discovery {
namespace {

// The size search on the target's space. A level-2 target starts its bracket above the size of
// the level in front of it, so that the first change it finds is its own.
class SizeProbe final : public Probe {
 public:
  SizeProbe(const Target& t, std::vector<Target> one_cache_with)
      : Probe(probe_name(t, "size"), {t.element}), t_(t), with_(std::move(one_cache_with)) {
    std::vector<Finding> reads = {{t.element, &keys::globalLoadsCached},
                                  {t.element, &keys::fetchGranularity},
                                  {t.inner, &keys::size},
                                  {t.inner, &keys::lineSize},
                                  {t.inner, &keys::fetchGranularity},
                                  {t.inner, &keys::latency},
                                  {t.inner, &keys::missPenalty}};
    for (const Target& w : with_) {
      reads.push_back({w.element, &keys::size});
      reads.push_back({w.element, &keys::fetchGranularity});
    }
    declare(std::move(reads), {{t.element, &keys::size}, {t.element, &keys::carveout}});
  }

  void run(Context& ctx) override {
    if (auto why = gate(ctx, t_)) {
      ctx.put(t_.element, keys::size,
              model::Attribute::unavailable(model::Source::Measured, "B", *why));
      return;
    }
    std::vector<std::string> weaker;
    SizeSearchSpec spec;
    if (!plan(ctx, spec, weaker)) return;
    model::Json one_cache;
    if (any_one_cache_size(ctx, spec, one_cache)) return;
    auto r = search_size(ctx, spec);
    if (t_.level > 1 && !(spec.served_in_front_below > 0)) front_hits_kept(r);
    record_carveout(ctx, t_, r.conditions);
    model::Attribute a;
    if (r.established) {
      a = model::Attribute::measured(r.value, "B", "pchase-size-sweep", r.confidence);
      a.interval = model::Interval{r.lo, r.hi};
      a.reason = join(weaker);
    } else if (r.capped && t_.space_limit_bytes && spec.max_bytes == t_.space_limit_bytes) {
      // The space cannot hold a larger array: the capacity is at least the limit, no more is known.
      a = model::Attribute::measured(r.lo, "B", "pchase-size-sweep (lower bound)", 0.0);
      a.interval = model::Interval{r.lo, std::numeric_limits<double>::infinity()};
      weaker.insert(weaker.begin(), "at least " + std::to_string(spec.max_bytes) +
                                        " B: the space holds no larger array and the sweep saw "
                                        "no capacity change up to its limit");
      a.reason = join(weaker);
    } else {
      a = model::Attribute::unavailable(model::Source::Measured, "B", r.reason);
      a.method = "pchase-size-sweep";
      a.confidence = r.confidence;
      if (!weaker.empty()) a.reason += "; " + join(weaker);
    }
    a.evidence = r.evidence;
    a.evidence["batches"] = r.batches;
    if (!one_cache.is_null()) a.evidence["oneCacheWith"] = one_cache;
    ctx.put(t_.element, keys::size, std::move(a));
  }

 private:
  // The search's plan for this target; false once the size was put as not measurable.
  bool plan(Context& ctx, SizeSearchSpec& spec, std::vector<std::string>& weaker) const {
    spec.space = t_.space;
    // A level-2 target's loads must each pass the level in front: at least one of its lines (its
    // fetch where the line is not known) apart, whatever this level fetches.
    const std::uint32_t front = t_.level > 1 ? inner_unit(ctx) : 0;
    spec.stride = fetch_granularity_or(ctx, t_, std::max<std::uint32_t>(32, front), weaker);
    if (spec.stride < front) {
      weaker.push_back("steps of the " + t_.inner + " line (" + std::to_string(front) +
                       " B), more than this level fetches");
      spec.stride = front;
    }
    spec.step = spec.stride;
    spec.carveout = carveout_for(ctx, t_);
    spec.points_per_batch = static_cast<std::size_t>(std::max(ctx.info().sm_count(), 32));
    // A level-2 target's misses come from the L2 at a latency that differs between SMs: on one SM
    // they form one level.
    spec.confirm_sm = t_.level > 1 ? kLatencySm : kSmsInTurn;
    spec.estimator = SizeSearchSpec::Estimator::SteepestRise;
    spec.regions = 4;
    spec.min_bytes = 512;
    // No SM-private cache is larger than the whole L1/shared storage; four times the shared
    // memory per SM leaves room for GPUs where the API under-reports it.
    spec.max_bytes = std::max<std::uint64_t>(4 * ctx.info().shared_per_sm_bytes(), 1u << 20);
    if (t_.level > 1) {
      const Input inner = ctx.input(t_.inner, keys::size);
      if (inner) {
        spec.min_bytes = round_up(static_cast<std::uint64_t>(*inner.value * 1.5), spec.step);
        spec.served_in_front_below = front_hit_threshold(ctx);
      } else {
        ctx.put(t_.element, keys::size,
                model::Attribute::unavailable(model::Source::Measured, "B",
                                              "needs the size of " + t_.inner + ": " + inner.why));
        return false;
      }
    }
    if (t_.space_limit_bytes) {
      spec.max_bytes = std::min(spec.max_bytes, t_.space_limit_bytes);
      // A small space gets a denser bracket: a change near its limit needs points past it.
      spec.bracket_growth = 1.25;
    }
    if (spec.min_bytes >= spec.max_bytes) {
      ctx.put(t_.element, keys::size,
              model::Attribute::unavailable(model::Source::Measured, "B",
                                            "the space limit leaves nothing to sweep"));
      return false;
    }
    return true;
  }

  // Without the front's hit level its hits stay in the sweep, and its own capacity at the search's
  // stride may read as this level's: not established.
  void front_hits_kept(SizeSearchResult& r) const {
    if (!r.established) return;
    r.established = false;
    r.confidence = std::min(r.confidence, 0.25);
    r.reason = "the hits of " + t_.inner +
               " could not be left out (its latency or miss penalty is not established)";
  }

  // Half-way from the level in front's per-load hit latency (its latency probe's evidence) to a
  // miss there (its miss penalty above it): loads under it were that level's hits. 0 where
  // either is not established.
  double front_hit_threshold(const Context& ctx) const {
    const auto* hit = ctx.get(t_.inner, keys::latency);
    const Input penalty = ctx.input(t_.inner, keys::missPenalty);
    if (!hit || !hit->available() || !penalty || !hit->evidence.is_object()) return 0;
    const auto per_load = hit->evidence.find("perLoad");
    if (per_load == hit->evidence.end() || !per_load->is_object()) return 0;
    const double median = per_load->value("median", 0.0);
    return median > 0 ? median + *penalty.value / 2 : 0;
  }

  // Tries each earlier view in turn: true where one confirms; `checks` holds the failed ones.
  bool any_one_cache_size(Context& ctx, const SizeSearchSpec& spec, model::Json& checks) {
    for (const Target& w : with_) {
      model::Json check;
      if (one_cache_size(ctx, spec, w, check)) return true;
      if (checks.is_null()) checks = model::Json::array();
      checks.push_back(check);
    }
    return false;
  }

  // Where the earlier view `with` is the same physical cache (the sharing test at its size) and
  // this view's misses rise at that size too (confirm_size), this view takes that view's size
  // and returns true; otherwise `check` holds why not.
  bool one_cache_size(Context& ctx, const SizeSearchSpec& spec, const Target& with,
                      model::Json& check) {
    const model::Attribute* other = ctx.get(with.element, keys::size);
    const Input size = ctx.input(with.element, keys::size);
    check = {{"view", with.element}};
    if (!size || !other || !other->interval) {
      check["reason"] = "its size is not established";
      return false;
    }
    std::vector<std::string> unused;
    const auto other_stride = fetch_granularity_or(ctx, with, spec.stride, unused);
    device::InterferenceBatch batch;
    batch.carveout_percent = spec.carveout;
    add_sharing_test({t_, *size.value, spec.stride}, {with, *size.value, other_stride}, batch);
    ctx.expect_batches(2);
    analysis::DisturbanceResult d;
    SizeConfirmation c;
    try {  // a replay recorded without these checks runs the full search
      d = sharing_test_result(ctx.interfere(batch), 0);
      if (d.disturbed) c = confirm_size(ctx, spec, *size.value);
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      check["reason"] = std::string("the device could not run the checks: ") + e.what();
      return false;
    }
    check["sharingTest"] = {{"disturbed", d.disturbed},
                            {"pValue", d.p_value},
                            {"missWithoutB", d.reference_miss},
                            {"missWithB", d.disturbed_miss}};
    if (!d.disturbed) {
      check["reason"] = "not one physical cache by the sharing test";
      return false;
    }
    check["confirm"] = c.evidence;
    if (!c.confirmed) {
      check["reason"] = c.reason;
      return false;
    }
    record_carveout(ctx, t_, c.conditions);
    check["confirmed"] = true;
    model::Attribute a = *other;
    a.confidence = std::min({other->confidence.value_or(0.0), 1 - d.p_value, 1 - c.p_value});
    a.method = "pchase-size-sweep of " + with.element + ", confirmed on this view";
    a.evidence = {{"oneCacheWith", check}, {"batches", 2}};
    ctx.put(t_.element, keys::size, std::move(a));
    return true;
  }

  std::uint32_t inner_unit(const Context& ctx) const {
    Input unit = ctx.input(t_.inner, keys::lineSize);
    if (!unit) unit = ctx.input(t_.inner, keys::fetchGranularity);
    return unit && *unit.value >= 1 ? static_cast<std::uint32_t>(*unit.value) : 0;
  }

  Target t_;
  std::vector<Target> with_;
};

}  // namespace

// Doubling bracket + per-SM sweep -> size with interval. With `one_cache_with`
// (earlier views that may be the same physical cache), a sharing test and a few sizes around each
// view's size come first, in turn, and the full search runs only where none confirms.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 30, Made::PerTarget, [](const Site& s) {
  return std::make_unique<SizeProbe>(*s.target, one_cache_with(s.info, *s.target));
});

}  // namespace gputopo::discovery
