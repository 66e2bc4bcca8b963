#include "discovery/sm_groups.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/inference.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

device::InterferenceRequest two_sm_pair(const device::ChaseRequest& a,
                                        const device::ChaseRequest& b, int sm_a, int sm_b) {
  device::InterferenceRequest r;
  r.placement = device::InterferenceRequest::Placement::TwoSms;
  r.a = a;
  r.b = b;
  r.sm = sm_a;
  r.sm_b = sm_b;
  return r;
}

}  // namespace

double effect_cut(std::vector<double> effects, double min_effect, double min_gap) {
  double cut = min_effect;
  if (min_gap <= 0 || effects.size() < 2) return cut;
  std::sort(effects.begin(), effects.end());
  double widest = 0;
  for (std::size_t i = 1; i < effects.size(); ++i) {
    const double gap = effects[i] - effects[i - 1];
    if (gap >= min_gap && gap > widest && effects[i] >= min_effect) {
      widest = gap;
      cut = std::max(min_effect, (effects[i] + effects[i - 1]) / 2);
    }
  }
  return cut;
}

SmGroupsFound group_sms_by_interference(Context& ctx, const SmGroupsSpec& spec) {
  // B's array differs from A's by one element, so that no backend shares the two.
  const auto a = one_pass_request(spec.space, spec.bytes, spec.stride);
  auto b = a;
  b.array_bytes = spec.bytes + spec.stride;
  b.recorded_loads = 16;
  const auto tiny = chase_request(spec.space, spec.stride, spec.stride, 1, 16);
  const std::size_t n = spec.sms.size();
  std::vector<int> group_of(n, -1);
  SmGroupsFound out;
  for (std::size_t round = 0; round < (spec.all_rounds ? n : 1); ++round) {
    const auto it = std::find(group_of.begin(), group_of.end(), -1);
    if (it == group_of.end()) break;
    const auto reference = static_cast<std::size_t>(it - group_of.begin());
    std::vector<std::size_t> others;
    for (std::size_t k = reference + 1; k < n; ++k)
      if (group_of[k] == -1) others.push_back(k);
    group_of[reference] = static_cast<int>(out.groups.size());
    out.groups.push_back({spec.sms[reference]});
    if (others.empty()) continue;
    const int s = spec.sms[reference];
    device::InterferenceBatch batch;
    batch.requests.push_back(two_sm_pair(a, tiny, s, spec.sms[others.front()]));
    for (const auto k : others) batch.requests.push_back(two_sm_pair(a, b, s, spec.sms[k]));
    ctx.expect_batches(1);
    const auto result = ctx.interfere(batch);
    const auto beside_tiny = latencies(result.results.front());
    std::vector<analysis::DisturbanceResult> found;
    std::vector<double> effects;
    for (std::size_t i = 0; i < others.size() && i + 1 < result.results.size(); ++i) {
      found.push_back(analysis::disturbance_test(beside_tiny, latencies(result.results[i + 1])));
      effects.push_back(found.back().effect);
    }
    const double cut = effect_cut(effects, spec.min_effect, spec.min_gap);
    for (std::size_t i = 0; i < found.size(); ++i) {
      const auto& d = found[i];
      ++out.decisions;
      const bool disturbed = d.disturbed && d.effect >= cut;
      out.tests.push_back({s, spec.sms[others[i]], d.effect, d.median_ratio, d.p_value, disturbed});
      if (!disturbed) continue;
      group_of[others[i]] = group_of[reference];
      out.groups.back().push_back(spec.sms[others[i]]);
      out.worst_p = std::max(out.worst_p, d.p_value);
    }
  }
  return out;
}

model::Json tests_json(const std::vector<SmPairTest>& tests) {
  model::Json out = model::Json::array();
  for (const auto& t : tests)
    out.push_back({t.reference, t.sm, std::round(t.effect * 1000) / 1000,
                   std::round(t.median_ratio * 1000) / 1000, t.disturbed});
  return out;
}

}  // namespace gputopo::discovery
