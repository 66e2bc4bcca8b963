#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "analysis/inference.hpp"
#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes.hpp"

namespace gputopo::discovery {
namespace {

struct View {
  Target target;
  double size = 0;
  std::uint32_t stride = 0;
};

// One thread warms A (three quarters of the smaller cache), then B in another space (the larger
// cache's size), then times A; a significant rise of A's misses against A after a tiny B means one
// physical cache. Views found to be one cache then report one size: the median of the per-view
// sizes, with the per-view values as evidence.
class SharingProbe final : public Probe {
 public:
  SharingProbe(std::vector<Target> candidates, std::vector<std::string> needs)
      : Probe("sharing", element_keys(candidates), std::move(needs)),
        candidates_(std::move(candidates)) {}

  void run(Context& ctx) override {
    std::vector<View> views;
    std::map<std::string, std::string> untested;
    for (const auto& t : candidates_) {
      const Input size = ctx.input(t.element, "size");
      if (auto why = gate(ctx, t)) {
        untested[t.element] = *why;
      } else if (!size) {
        untested[t.element] = "size " + size.why;
      } else {
        const Input line = ctx.input(t.element, "lineSize");
        const Input fg = ctx.input(t.element, "fetchGranularity");
        const double stride = line ? *line.value : (fg ? *fg.value : 32.0);
        views.push_back({t, *size.value, static_cast<std::uint32_t>(stride)});
      }
    }

    device::InterferenceBatch batch;
    batch.carveout_percent = ctx.options().carveout_percent;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (A, B) view indices
    for (std::size_t i = 0; i < views.size(); ++i) {
      for (std::size_t j = i + 1; j < views.size(); ++j) {
        const bool i_smaller = views[i].size <= views[j].size;
        const View& a = i_smaller ? views[i] : views[j];
        const View& b = i_smaller ? views[j] : views[i];
        std::uint64_t b_bytes = static_cast<std::uint64_t>(std::max(b.size, 2 * a.size));
        if (b.target.space_limit_bytes) b_bytes = std::min(b_bytes, b.target.space_limit_bytes);
        device::InterferenceRequest r;
        r.placement = device::InterferenceRequest::Placement::SameThread;
        r.a = chase_request(a.target.space,
                            round_up(static_cast<std::uint64_t>(a.size * 0.75), a.stride), a.stride,
                            1, 1024);
        r.b = chase_request(b.target.space, round_up(b_bytes, b.stride), b.stride, 1, 256);
        auto ref = r;
        ref.b = chase_request(b.target.space, b.stride, b.stride, 1, 16);
        batch.requests.push_back(ref);
        batch.requests.push_back(r);
        pairs.emplace_back(i_smaller ? i : j, i_smaller ? j : i);
      }
    }

    std::vector<std::size_t> parent(views.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto root = [&](std::size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    std::vector<double> decision_confidence(views.size(), 1.0);
    model::Json tests = model::Json::array();
    if (!pairs.empty()) {
      ctx.expect_batches(1);
      const auto result = ctx.interfere(batch);
      for (std::size_t p = 0; p < pairs.size(); ++p) {
        const auto ref = latencies(result.results[2 * p]);
        const auto timed = latencies(result.results[2 * p + 1]);
        const auto d = analysis::disturbance_test(ref, timed);
        const auto [a, b] = pairs[p];
        if (d.disturbed) parent[root(a)] = root(b);
        // Disturbed: as sure as the test is significant. Not disturbed: as sure as A's miss
        // fraction stayed put.
        const double c = d.disturbed ? 1.0 - d.p_value : 1.0 - std::clamp(d.effect, 0.0, 1.0);
        decision_confidence[a] = std::min(decision_confidence[a], c);
        decision_confidence[b] = std::min(decision_confidence[b], c);
        tests.push_back({{"a", views[a].target.element},
                         {"b", views[b].target.element},
                         {"disturbed", d.disturbed},
                         {"pValue", d.p_value},
                         {"effect", d.effect},
                         {"missWithoutB", d.reference_miss},
                         {"missWithB", d.disturbed_miss}});
      }
    }

    for (std::size_t i = 0; i < views.size(); ++i) {
      model::Json with = model::Json::array();
      for (std::size_t j = 0; j < views.size(); ++j)
        if (j != i && root(j) == root(i)) with.push_back(views[j].target.element);
      auto a = model::Attribute::measured(with, "", "same-thread interference between spaces",
                                          decision_confidence[i]);
      a.evidence = {{"tests", tests}};
      model::Json skipped = model::Json::object();
      for (const auto& [k, why] : untested) skipped[k] = why;
      if (!untested.empty()) {
        a.evidence["untested"] = skipped;
        a.reason = "not tested against " + std::to_string(untested.size()) +
                   " space(s) whose size is not established";
      }
      ctx.put(views[i].target.element, "sharedWith", std::move(a));
    }
    for (const auto& [k, why] : untested)
      ctx.put(k, "sharedWith", model::Attribute::unavailable(model::Source::Measured, "", why));

    unify_sizes(ctx, views, root);
  }

 private:
  static std::vector<std::string> element_keys(const std::vector<Target>& ts) {
    std::vector<std::string> out;
    for (const auto& t : ts) out.push_back(t.element);
    return out;
  }

  static double weighted_median(std::vector<std::pair<double, double>> v) {
    std::sort(v.begin(), v.end());
    double total = 0;
    for (const auto& [x, w] : v) total += w;
    double cumulative = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      cumulative += v[i].second;
      // Exactly half: the midpoint of the two middle views, like an ordinary median.
      if (std::abs(cumulative - total / 2) <= 1e-12 * total && i + 1 < v.size())
        return (v[i].first + v[i + 1].first) / 2;
      if (cumulative > total / 2) return v[i].first;
    }
    return v.empty() ? 0.0 : v.back().first;
  }

  template <class Root>
  static void unify_sizes(Context& ctx, const std::vector<View>& views, Root& root) {
    std::map<std::size_t, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < views.size(); ++i) groups[root(i)].push_back(i);
    for (const auto& [r, members] : groups) {
      if (members.size() < 2) continue;
      model::Json per_view = model::Json::object();
      model::Json per_view_confidence = model::Json::object();
      std::vector<std::pair<double, double>> weighted;  // (size, confidence) per view
      for (std::size_t m : members) {
        const auto* s = ctx.get(views[m].target.element, "size");
        const double w = s && s->confidence ? std::max(*s->confidence, 1e-6) : 1e-6;
        weighted.emplace_back(views[m].size, w);
        per_view[views[m].target.element] = views[m].size;
        per_view_confidence[views[m].target.element] = w;
      }
      // One size for the physical cache: the median of its views weighted by their confidence
      // (sharp, reproducible rises count most). Views within 2 % of it agree; the confidence is
      // the agreeing share of the weight times their weakest confidence, the interval the hull of
      // theirs. A view that disagrees is kept as evidence and named in a warning.
      const double size = weighted_median(weighted);
      double total_weight = 0, agreeing_weight = 0;
      for (const auto& [v, w] : weighted) total_weight += w;
      double lo = size, hi = size, confidence = 1;
      std::size_t agreeing = 0;
      for (std::size_t k = 0; k < members.size(); ++k) {
        const std::size_t m = members[k];
        const auto* s = ctx.get(views[m].target.element, "size");
        if (std::abs(views[m].size - size) > 0.02 * size) {
          ctx.warn("the " + views[m].target.element + " view of one physical cache measured " +
                   std::to_string(static_cast<long long>(views[m].size)) + " B against " +
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
      confidence *= agreeing > 0 ? agreeing_weight / total_weight : 0.0;
      model::Json names = model::Json::array();
      for (std::size_t m : members) names.push_back(views[m].target.element);
      for (std::size_t m : members) {
        const auto* old = ctx.get(views[m].target.element, "size");
        model::Attribute a = old ? *old : model::Attribute{};
        a.value = size;
        a.confidence = confidence;
        a.interval = model::Interval{lo, hi};
        a.method = "pchase-size-sweep, one physical cache: confidence-weighted median of its views";
        model::Json sweep = a.evidence;
        a.evidence = model::Json{{"physicalCache", names},
                                 {"perView", per_view},
                                 {"perViewConfidence", per_view_confidence},
                                 {"thisView", sweep}};
        ctx.put(views[m].target.element, "size", std::move(a));
      }
    }
  }

  std::vector<Target> candidates_;
};

}  // namespace

std::unique_ptr<Probe> make_sharing_probe(std::vector<Target> candidates,
                                          std::vector<std::string> needs) {
  return std::make_unique<SharingProbe>(std::move(candidates), std::move(needs));
}

}  // namespace gputopo::discovery
