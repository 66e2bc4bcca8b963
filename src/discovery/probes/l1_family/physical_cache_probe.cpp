#include <algorithm>
#include <cmath>
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

// Gives the views of one physical cache one size: the median of the views' sizes weighted by their
// confidence (sharp, reproducible rises count most). Views within 2 % of it agree; the confidence
// is the agreeing share of the weight times their weakest confidence, the interval the hull of
// theirs. A view that disagrees keeps its own size, named in a warning: its sweep or the sharing
// test is wrong, so its confidence is scaled by the share of the weight that disagrees too.
void unify(Context& ctx, const std::vector<CacheView>& views) {
  model::Json per_view = model::Json::object();
  model::Json per_view_confidence = model::Json::object();
  std::vector<std::pair<double, double>> weighted;  // (size, confidence) per view
  for (const CacheView& v : views) {
    const auto* s = ctx.get(v.element, keys::size);
    const double w = s && s->confidence ? std::max(*s->confidence, 1e-6) : 1e-6;
    weighted.emplace_back(v.size, w);
    per_view[v.element] = v.size;
    per_view_confidence[v.element] = w;
  }
  const double size = analysis::weighted_median(weighted);
  double total_weight = 0, agreeing_weight = 0;
  for (const auto& [v, w] : weighted) total_weight += w;
  double lo = size, hi = size, confidence = 1;
  std::size_t agreeing = 0;
  for (std::size_t k = 0; k < views.size(); ++k) {
    const auto* s = ctx.get(views[k].element, keys::size);
    if (std::abs(views[k].size - size) > 0.02 * size) {
      ctx.warn("the " + views[k].element + " view of one physical cache measured " +
               std::to_string(static_cast<long long>(views[k].size)) + " B against " +
               std::to_string(static_cast<long long>(size)) + " B for the others");
      continue;
    }
    ++agreeing;
    agreeing_weight += weighted[k].second;
    if (s && s->interval) {
      lo = std::min(lo, s->interval->lo);
      hi = std::max(hi, s->interval->hi);
    }
    if (s && s->confidence) confidence = std::min(confidence, *s->confidence);
  }
  const double agreeing_share = agreeing > 0 ? agreeing_weight / total_weight : 0.0;
  confidence *= agreeing_share;
  model::Json names = model::Json::array();
  for (const CacheView& v : views) names.push_back(v.element);
  for (const CacheView& v : views) {
    const auto* old = ctx.get(v.element, keys::size);
    model::Attribute a = old ? *old : model::Attribute{};
    if (std::abs(v.size - size) > 0.02 * size) {
      a.confidence = a.confidence.value_or(0.0) * (1 - agreeing_share);
      a.reason += std::string(a.reason.empty() ? "" : "; ") +
                  "the sharing test finds this view one cache with others that measured " +
                  std::to_string(static_cast<long long>(size)) + " B";
    } else {
      a.value = size;
      a.confidence = confidence;
      a.interval = model::Interval{lo, hi};
      a.method = "pchase-size-sweep, one physical cache: confidence-weighted median of its views";
    }
    model::Json sweep = a.evidence;
    a.evidence = model::Json{{"physicalCache", names},
                             {"perView", per_view},
                             {"perViewConfidence", per_view_confidence},
                             {"thisView", sweep}};
    ctx.put(v.element, keys::size, std::move(a));
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
