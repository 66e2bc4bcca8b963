#include <algorithm>
#include <map>

#include "analysis/inference.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"

namespace gputopo::discovery {
namespace {

// SMs grouped by who disturbs whom, with the worst p-value of a "disturbed" decision.
struct SharingGroups {
  std::vector<std::vector<int>> groups;
  double worst_p = 0;
  std::size_t decisions = 0;
};

// Which SMs share one instance of a cache (AMD's scalar L1, shared by a few CUs; AMD's L2, one per
// XCD): A on SM s and B on SM t, in two blocks, each warm three quarters of the cache, then A is
// timed. If s and t share the instance, B evicts A and A misses; if not, A hits. SMs are grouped
// by who disturbs whom (a significance test against A beside a tiny B), as the amount probe groups
// warps; MT4G's physical-sharing test on AMD asks the same of CU pairs.
class SmSharingProbe final : public Probe {
 public:
  SmSharingProbe(const Target& t, SmSharingSpec spec)
      : Probe(probe_name(t, "smSharing"), {t.element}), t_(t), spec_(spec) {
    declare({{t.element, spec.size_key},
             {t.element, &keys::lineSize},
             {t.element, &keys::fetchGranularity}},
            {{t.element, &keys::sharedBySms}, {t.element, &keys::instanceCount}});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      for (const model::Key* key : {&keys::sharedBySms, &keys::instanceCount})
        ctx.put(t_.element, *key, model::Attribute::unavailable(model::Source::Measured, "", why));
    };
    const Input size = ctx.input(t_.element, *spec_.size_key);
    if (!size) return fail("needs the cache size: " + size.why);
    std::vector<std::string> weaker;
    const Input line = ctx.input(t_.element, keys::lineSize);
    const std::uint32_t stride =
        line ? static_cast<std::uint32_t>(*line.value) : fetch_granularity_or(ctx, t_, 64, weaker);
    if (ctx.info().sm_count() < 2) return fail("the GPU has a single SM");
    const std::uint64_t bytes = round_up(static_cast<std::uint64_t>(*size.value * 0.75), stride);
    const SharingGroups g = group_sms(ctx, bytes, stride);
    put_result(ctx, g, bytes, stride, join(weaker));
  }

 private:
  // Every SM not yet grouped against the first one not yet grouped, round by round (one round
  // only where spec_.all_groups is false).
  SharingGroups group_sms(Context& ctx, std::uint64_t bytes, std::uint32_t stride) const {
    const int sms = ctx.info().sm_count();
    // B's array differs from A's by one element, so that no backend shares the two.
    const auto a = one_pass_request(t_.space, bytes, stride);
    auto b = a;
    b.array_bytes = bytes + stride;
    b.recorded_loads = 16;
    auto tiny = chase_request(t_.space, stride, stride, 1, 16);
    std::vector<int> group_of(static_cast<std::size_t>(sms), -1);
    SharingGroups out;
    auto& groups = out.groups;
    for (int round = 0; round < (spec_.all_groups ? sms : 1); ++round) {
      const auto it = std::find(group_of.begin(), group_of.end(), -1);
      if (it == group_of.end()) break;
      const int s = static_cast<int>(it - group_of.begin());
      std::vector<int> others;
      for (int t = 0; t < sms; ++t)
        if (t != s && group_of[static_cast<std::size_t>(t)] == -1) others.push_back(t);
      group_of[static_cast<std::size_t>(s)] = static_cast<int>(groups.size());
      groups.push_back({s});
      if (others.empty()) continue;
      device::InterferenceBatch batch;
      const auto pair = [&](int t, const device::ChaseRequest& with) {
        device::InterferenceRequest r;
        r.placement = device::InterferenceRequest::Placement::TwoSms;
        r.a = a;
        r.b = with;
        r.sm = s;
        r.sm_b = t;
        return r;
      };
      batch.requests.push_back(pair(others.front(), tiny));  // reference: A beside a tiny B
      for (const int t : others) batch.requests.push_back(pair(t, b));
      ctx.expect_batches(1);
      const auto result = ctx.interfere(batch);
      const auto reference = latencies(result.results.front());
      for (std::size_t i = 0; i < others.size() && i + 1 < result.results.size(); ++i) {
        const auto d = analysis::disturbance_test(reference, latencies(result.results[i + 1]));
        ++out.decisions;
        if (!d.disturbed) continue;
        group_of[static_cast<std::size_t>(others[i])] = static_cast<int>(groups.size()) - 1;
        groups.back().push_back(others[i]);
        out.worst_p = std::max(out.worst_p, d.p_value);
      }
    }
    return out;
  }

  void put_result(Context& ctx, const SharingGroups& g, std::uint64_t bytes, std::uint32_t stride,
                  const std::string& weaker) const {
    const auto& groups = g.groups;
    std::map<std::size_t, int> by_size;
    for (const auto& group : groups) ++by_size[group.size()];
    const auto common = std::max_element(by_size.begin(), by_size.end(), [](auto& x, auto& y) {
                          return x.second < y.second;
                        })->first;
    model::Json sizes = model::Json::object();
    for (const auto& [n, count] : by_size) sizes[std::to_string(n)] = count;
    model::Json evidence = {{"arrayBytes", bytes},
                            {"strideBytes", stride},
                            {"decisions", g.decisions},
                            {"groupSizes", sizes},
                            {"groupsFound", groups.size()}};
    if (spec_.all_groups)
      evidence["smGroups"] = groups;
    else
      evidence["groupOfSm"] = model::Json{{"sm", groups.front().front()}, {"sms", groups.front()}};
    const std::string method =
        spec_.all_groups ? "two-SM interference, every SM against every SM not yet grouped"
                         : "two-SM interference, SM 0 against every other SM";
    const double confidence = 1.0 - g.worst_p;
    auto shared = model::Attribute::measured(static_cast<int>(common), "", method, confidence);
    shared.evidence = evidence;
    shared.reason = weaker;
    ctx.put(t_.element, keys::sharedBySms, std::move(shared));
    if (spec_.all_groups) {
      auto count =
          model::Attribute::measured(static_cast<int>(groups.size()), "", method, confidence);
      count.reason = weaker;
      ctx.put(t_.element, keys::instanceCount, std::move(count));
    } else {
      const auto n = groups.front().size();
      const auto sms = static_cast<std::size_t>(ctx.info().sm_count());
      auto count =
          model::Attribute::measured(static_cast<int>((sms + n - 1) / n), "", method, confidence);
      count.source = model::Source::Derived;
      count.method = "smCount / sharedBySms, rounded up (every group as large as SM 0's)";
      count.reason = weaker;
      ctx.put(t_.element, keys::instanceCount, std::move(count));
    }
  }

  Target t_;
  SmSharingSpec spec_;
};

}  // namespace

std::unique_ptr<Probe> make_sm_sharing_probe(const Target& t, SmSharingSpec spec) {
  return std::make_unique<SmSharingProbe>(t, spec);
}

}  // namespace gputopo::discovery
