#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "analysis/inference.hpp"
#include "analysis/summary.hpp"
#include "analysis/union_find.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// For every pair of views (A the smaller, B the larger): A after a tiny B, then A after B.
// Returns the (A, B) view indices in the order of the batch's request pairs.
std::vector<std::pair<std::size_t, std::size_t>> add_pairs(const std::vector<SharingView>& views,
                                                           device::InterferenceBatch& batch) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < views.size(); ++i) {
    for (std::size_t j = i + 1; j < views.size(); ++j) {
      const bool i_smaller = views[i].size <= views[j].size;
      add_sharing_test(i_smaller ? views[i] : views[j], i_smaller ? views[j] : views[i], batch);
      pairs.emplace_back(i_smaller ? i : j, i_smaller ? j : i);
    }
  }
  return pairs;
}

// One thread warms A (three quarters of the smaller cache), then B in another space (the larger
// cache's size), then times A; a significant rise of A's misses against A after a tiny B means one
// physical cache. The views of one cache are named in each other's `sharedWith`
// (physical_cache_probe.cpp then gives them one size).
class SharingProbe final : public Probe {
 public:
  explicit SharingProbe(std::vector<Target> candidates)
      : Probe("sharing", element_keys(candidates), {}, Selection::AllElements),
        candidates_(std::move(candidates)) {
    std::vector<Finding> reads, writes;
    for (const Target& t : candidates_) {
      for (const model::Key* k :
           {&keys::globalLoadsCached, &keys::size, &keys::lineSize, &keys::fetchGranularity})
        reads.push_back({t.element, k});
      writes.push_back({t.element, &keys::sharedWith});
    }
    declare(std::move(reads), std::move(writes));
  }

  void run(Context& ctx) override {
    std::vector<SharingView> views;
    std::map<std::string, std::string> untested;
    for (const auto& t : candidates_) {
      const Input size = ctx.input(t.element, keys::size);
      if (auto why = gate(ctx, t)) {
        untested[t.element] = *why;
      } else if (!size) {
        untested[t.element] = "size " + size.why;
      } else {
        const Input line = ctx.input(t.element, keys::lineSize);
        const Input fg = ctx.input(t.element, keys::fetchGranularity);
        const double stride = line ? *line.value : (fg ? *fg.value : 32.0);
        views.push_back({t, *size.value, static_cast<std::uint32_t>(stride)});
      }
    }

    device::InterferenceBatch batch;
    batch.carveout_percent = ctx.options().carveout_percent;
    const auto pairs = add_pairs(views, batch);

    analysis::DisjointSets sets(views.size());
    std::vector<double> decision_confidence(views.size(), 1.0);
    model::Json tests = model::Json::array();
    if (!pairs.empty()) {
      ctx.expect_batches(1);
      const auto result = ctx.interfere(batch);
      for (std::size_t p = 0; p < pairs.size(); ++p) {
        const auto d = sharing_test_result(result, p);
        const auto [a, b] = pairs[p];
        if (d.disturbed) sets.join(a, b);
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
        if (j != i && sets.same(j, i)) with.push_back(views[j].target.element);
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
      ctx.put(views[i].target.element, keys::sharedWith, std::move(a));
    }
    for (const auto& [k, why] : untested)
      ctx.put(k, keys::sharedWith, model::Attribute::unavailable(model::Source::Measured, "", why));
  }

 private:
  std::vector<Target> candidates_;
};

}  // namespace

void add_sharing_test(const SharingView& a, const SharingView& b,
                      device::InterferenceBatch& batch) {
  std::uint64_t b_bytes = static_cast<std::uint64_t>(std::max(b.size, 2 * a.size));
  if (b.target.space_limit_bytes) b_bytes = std::min(b_bytes, b.target.space_limit_bytes);
  device::InterferenceRequest r;
  r.placement = device::InterferenceRequest::Placement::SameThread;
  r.a = chase_request(a.target.space, round_up(static_cast<std::uint64_t>(a.size * 0.75), a.stride),
                      a.stride, 1, 1024);
  r.b = chase_request(b.target.space, round_up(b_bytes, b.stride), b.stride, 1, 256);
  auto ref = r;
  ref.b = chase_request(b.target.space, b.stride, b.stride, 1, 16);
  batch.requests.push_back(ref);
  batch.requests.push_back(r);
}

analysis::DisturbanceResult sharing_test_result(const device::ChaseBatchResult& result,
                                                std::size_t test) {
  return analysis::disturbance_test(latencies(result.results[2 * test]),
                                    latencies(result.results[2 * test + 1]));
}

// One thread, two spaces evicting each other -> physically shared caches.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 100, Made::Once, [](const Site& s) {
  return std::make_unique<SharingProbe>(sharing_targets(s.info));
});

}  // namespace gputopo::discovery
