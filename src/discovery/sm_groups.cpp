#include "discovery/sm_groups.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

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

// A clean split of one round: the widest gap of at least `min_gap` between rises with every test
// below it not significantly disturbed and every test above it significantly disturbed, whatever
// the height of the upper side (a segment of few ways loses only part of A's lines to an SM of
// its own). The middle of that gap, or nullopt.
std::optional<double> clean_split(const std::vector<analysis::DisturbanceResult>& found,
                                  double min_gap) {
  if (min_gap <= 0 || found.size() < 2) return std::nullopt;
  std::vector<std::pair<double, bool>> tests;
  for (const auto& d : found) tests.emplace_back(d.effect, d.disturbed);
  std::sort(tests.begin(), tests.end());
  std::optional<double> cut;
  double widest = 0;
  for (std::size_t i = 1; i < tests.size(); ++i) {
    const double gap = tests[i].first - tests[i - 1].first;
    if (gap < min_gap || gap <= widest) continue;
    const auto below = tests.begin() + static_cast<std::ptrdiff_t>(i);
    const bool clean = std::none_of(tests.begin(), below, [](const auto& t) { return t.second; }) &&
                       std::all_of(below, tests.end(), [](const auto& t) { return t.second; });
    if (!clean) continue;
    widest = gap;
    cut = (tests[i].first + tests[i - 1].first) / 2;
  }
  return cut;
}

// One round's tests are one family: each p-value becomes Holm's adjusted one, and a test is
// disturbed where that is below the test's level (a round against 300 SMs would otherwise join
// three of them to the reference by chance).
void holm_family(std::vector<analysis::DisturbanceResult>& found) {
  std::vector<double> p;
  for (const auto& d : found) p.push_back(d.p_value);
  const auto adjusted = analysis::holm_adjusted(p);
  const double alpha = analysis::DisturbanceOptions{}.alpha;
  for (std::size_t i = 0; i < found.size(); ++i) {
    found[i].p_value = adjusted[i];
    found[i].disturbed = found[i].disturbed && adjusted[i] < alpha;
  }
}

// The rise this round's tests must reach: effect_cut's where some test reaches it, else a clean
// split of the round, else the cut an earlier round split at (the level that SMs sharing the
// segment reached there holds for the SMs left), else `min_effect`. `learned` keeps the last
// split.
double round_cut(const std::vector<analysis::DisturbanceResult>& found, const SmGroupsSpec& spec,
                 std::optional<double>& learned) {
  std::vector<double> effects;
  for (const auto& d : found) effects.push_back(d.effect);
  const double cut = effect_cut(effects, spec.min_effect, spec.min_gap);
  const bool reached = std::any_of(found.begin(), found.end(),
                                   [&](const auto& d) { return d.disturbed && d.effect >= cut; });
  if (spec.min_gap <= 0) return cut;
  if (reached && cut > spec.min_effect) {
    learned = cut;
    return cut;
  }
  if (!reached) {
    if (const auto split = clean_split(found, spec.min_gap)) {
      learned = *split;
      return *split;
    }
  }
  return learned ? std::min(cut, *learned) : cut;
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
  std::optional<double> learned;
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
    for (std::size_t i = 0; i < others.size() && i + 1 < result.results.size(); ++i)
      found.push_back(analysis::disturbance_test(beside_tiny, latencies(result.results[i + 1])));
    holm_family(found);
    const double cut = round_cut(found, spec, learned);
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
