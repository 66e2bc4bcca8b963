#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

struct CacheView {
  std::string element;
  double size = 0;
};

// The views of each physical cache with more than one view, from their `sharedWith`, in the
// order of their first view.
std::vector<std::vector<CacheView>> physical_caches(const Context& ctx,
                                                    const std::vector<Target>& candidates) {
  std::vector<CacheView> views;
  std::map<std::string, std::vector<std::string>> with;
  for (const auto& t : candidates) {
    const model::Attribute* shared = ctx.get(t.element, keys::sharedWith);
    if (!shared || !shared->value.is_array()) continue;
    views.push_back({t.element, ctx.input(t.element, keys::size).value.value_or(0)});
    with[t.element] = shared->value.get<std::vector<std::string>>();
  }
  std::vector<std::vector<CacheView>> caches;
  std::vector<bool> placed(views.size(), false);
  for (std::size_t i = 0; i < views.size(); ++i) {
    if (placed[i]) continue;
    std::vector<CacheView> cache;
    for (std::size_t j = i; j < views.size(); ++j) {
      const auto& w = with[views[i].element];
      if (j == i || std::find(w.begin(), w.end(), views[j].element) != w.end()) {
        placed[j] = true;
        cache.push_back(views[j]);
      }
    }
    if (cache.size() > 1) caches.push_back(std::move(cache));
  }
  return caches;
}

// A view's own reading of its cache's size, how far it may be off, and its weight: its search's
// onset, interval and confidence; or, where it took an earlier view's size after checking it
// (`oneCacheWith`), where its own confirming sweep's rise starts, to one step of that sweep,
// weighted by that rise's significance. Each reading chases its own arrays, so the readings differ
// as the pages they got do.
struct Reading {
  double size = 0;
  double half = 0;
  double weight = 1e-6;
  bool confirmed = false;
};
Reading reading_of(const model::Attribute* s, double size) {
  Reading r{size};
  if (!s) return r;
  if (s->confidence) r.weight = std::max(*s->confidence, 1e-6);
  const auto object_at = [](const model::Json& j, const char* key) {
    return j.is_object() && j.contains(key) && j.at(key).is_object() ? j.at(key)
                                                                     : model::Json::object();
  };
  const auto check = object_at(s->evidence, "oneCacheWith");
  const auto confirm = object_at(check, "confirm");
  const double onset = confirm.value("onset", 0.0);
  const auto points = confirm.value("points", 0);
  if (check.value("confirmed", false) && onset > 0 && points > 1) {
    r.size = onset;
    r.half = (confirm.value("to", 0.0) - confirm.value("from", 0.0)) / (points - 1);
    r.weight = std::max(1 - confirm.value("pValue", 1.0), 1e-6);
    r.confirmed = true;
  } else if (s->interval) {
    r.half = std::max(size - s->interval->lo, s->interval->hi - size);
  }
  return r;
}

// `size` to the searches' own grid, the largest stride a view's search stepped by (a confirming
// sweep's onset falls between sizes a search would chase).
double on_grid(double size, const Context& ctx, const std::vector<CacheView>& views) {
  double step = 0;
  for (const CacheView& v : views)
    if (const auto* s = ctx.get(v.element, keys::size); s && s->evidence.is_object())
      step = std::max(step, s->evidence.value("strideBytes", 0.0));
  return step > 0 ? std::round(size / step) * step : size;
}

// Readings within this share of the median agree with it.
constexpr double kAgreement = 0.02;

// The readings' weighted median and what the readings within 2 % of it (the agreeing ones) say of
// it: the share of the weight they hold, their weakest confidence times that share, and the
// reading nearest the median (its distance and half-width make the interval). A reading further
// off is named in a warning.
struct Consensus {
  double size = 0;
  double share = 0;
  double confidence = 1;
  double nearest = std::numeric_limits<double>::infinity();
  double half = 0;
};
Consensus consensus_of(Context& ctx, const std::vector<CacheView>& views,
                       const std::vector<Reading>& readings) {
  std::vector<std::pair<double, double>> weighted;
  double total = 0, agreeing = 0;
  for (const Reading& r : readings) {
    weighted.emplace_back(r.size, r.weight);
    total += r.weight;
  }
  Consensus c;
  c.size = on_grid(analysis::weighted_median(weighted), ctx, views);
  for (std::size_t k = 0; k < views.size(); ++k) {
    const Reading& r = readings[k];
    const double distance = std::abs(r.size - c.size);
    if (distance > kAgreement * c.size) {
      ctx.warn("the " + views[k].element + " view of one physical cache measured " +
               std::to_string(static_cast<long long>(r.size)) + " B against " +
               std::to_string(static_cast<long long>(c.size)) + " B for the others");
      continue;
    }
    agreeing += r.weight;
    const auto* s = ctx.get(views[k].element, keys::size);
    if (s && s->confidence) c.confidence = std::min(c.confidence, *s->confidence);
  }
  // The nearest reading agrees wherever any does; of equally near ones, the most precise.
  for (const Reading& r : readings) {
    const double distance = std::abs(r.size - c.size);
    if (distance < c.nearest || (distance == c.nearest && r.half < c.half)) {
      c.nearest = distance;
      c.half = r.half;
    }
  }
  c.share = total > 0 ? agreeing / total : 0.0;
  c.confidence *= c.share;
  return c;
}

// Gives the views of one physical cache one size: the weighted median of the views' own readings.
// Over five runs each of 14 H200s, the median of the three readings moved between runs by 0.74 %
// (pooled standard deviation), where the L1 search's onset alone moved by 2.0 %. Where a view
// confirmed the cache by its own sweep, every view takes the median, a reading off by more than
// 2 % (the pages one array got) only lowering the confidence. Otherwise a view that disagrees keeps
// its own size: its search or the sharing test is wrong, so its confidence is scaled by the share
// of the weight that disagrees too.
void unify(Context& ctx, const std::vector<CacheView>& views) {
  model::Json per_view = model::Json::object();
  model::Json per_view_weight = model::Json::object();
  std::vector<Reading> readings;
  for (const CacheView& v : views) {
    readings.push_back(reading_of(ctx.get(v.element, keys::size), v.size));
    per_view[v.element] = readings.back().size;
    per_view_weight[v.element] = readings.back().weight;
  }
  const Consensus c = consensus_of(ctx, views, readings);
  const bool confirmed =
      std::any_of(readings.begin(), readings.end(), [](const Reading& r) { return r.confirmed; });
  model::Json names = model::Json::array();
  for (const CacheView& v : views) names.push_back(v.element);
  for (std::size_t k = 0; k < views.size(); ++k) {
    const auto* old = ctx.get(views[k].element, keys::size);
    model::Attribute a = old ? *old : model::Attribute{};
    if (!confirmed && std::abs(readings[k].size - c.size) > kAgreement * c.size) {
      a.confidence = a.confidence.value_or(0.0) * (1 - c.share);
      a.reason += std::string(a.reason.empty() ? "" : "; ") +
                  "the sharing test finds this view one cache with others that measured " +
                  std::to_string(static_cast<long long>(c.size)) + " B";
    } else {
      a.value = c.size;
      a.confidence = c.confidence;
      a.interval = model::Interval{c.size - c.nearest - c.half, c.size + c.nearest + c.half};
      a.method =
          "pchase-size-sweep, one physical cache: weighted median of its views' own readings";
    }
    model::Json sweep = a.evidence;
    a.evidence = model::Json{{"physicalCache", names},
                             {"perView", per_view},
                             {"perViewWeight", per_view_weight},
                             {"thisView", sweep}};
    ctx.put(views[k].element, keys::size, std::move(a));
  }
}

// The views that the sharing probe found to be one physical cache report one size.
class PhysicalCacheProbe final : public Probe {
 public:
  explicit PhysicalCacheProbe(std::vector<Target> candidates)
      : Probe("sharing.size", element_keys(candidates), {}, Selection::AllElements),
        candidates_(std::move(candidates)) {
    std::vector<Finding> reads, writes;
    for (const Target& t : candidates_) {
      reads.push_back({t.element, &keys::sharedWith});
      reads.push_back({t.element, &keys::size});  // and revises it
      writes.push_back({t.element, &keys::size});
    }
    declare(std::move(reads), std::move(writes));
  }

  void run(Context& ctx) override {
    for (const auto& views : physical_caches(ctx, candidates_)) unify(ctx, views);
  }

 private:
  std::vector<Target> candidates_;
};

}  // namespace

// The views the sharing probe found to be one physical cache -> one size for them
//.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 110, Made::Once, [](const Site& s) {
  return std::make_unique<PhysicalCacheProbe>(sharing_targets(s.info));
});

}  // namespace gputopo::discovery
