#include <algorithm>
#include <map>

#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"
#include "discovery/sm_groups.hpp"
#include "model/vendor.hpp"

namespace gputopo::discovery {
namespace {

// Which cache the sm-sharing probe groups SMs by.
struct SmSharingSpec {
  const model::Key* size_key = &model::keys::size;  // the finding that holds the cache's size
  // True: every SM is grouped (all pairs not yet grouped); false: only SM 0's group, the count
  // derived from its size (for a large cache, where every pair would take too long).
  bool all_groups = true;
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
    const SmGroupsFound g = group_sms(ctx, bytes, stride);
    put_result(ctx, g, bytes, stride, join(weaker));
  }

 private:
  SmGroupsFound group_sms(Context& ctx, std::uint64_t bytes, std::uint32_t stride) const {
    SmGroupsSpec spec;
    spec.space = t_.space;
    spec.bytes = bytes;
    spec.stride = stride;
    for (int sm = 0; sm < ctx.info().sm_count(); ++sm) spec.sms.push_back(sm);
    spec.all_rounds = spec_.all_groups;
    return group_sms_by_interference(ctx, spec);
  }

  void put_result(Context& ctx, const SmGroupsFound& g, std::uint64_t bytes, std::uint32_t stride,
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
    if (spec_.all_groups) {
      evidence["smGroups"] = groups;
      model::set_shared_cache(ctx.topology(), t_.element, groups);
    } else {
      evidence["groupOfSm"] = model::Json{{"sm", groups.front().front()}, {"sms", groups.front()}};
    }
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

// Which SMs share one instance of a cache, by two-SM interference.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 90, Made::PerTarget,
                       [](const Site& s) -> std::unique_ptr<Probe> {
                         if (!s.target->shared_among_sms) return nullptr;
                         return std::make_unique<SmSharingProbe>(*s.target, SmSharingSpec{});
                       });
// AMD's L2 may be one of several (one per XCD), each reached by its own CUs only: the last of the
// L2's probes.
GPUTOPO_REGISTER_PROBE(Family::L2, 80, Made::Once, [](const Site& s) -> std::unique_ptr<Probe> {
  if (!model::is_amd(s.info)) return nullptr;
  return std::make_unique<SmSharingProbe>(l2_target(),
                                          SmSharingSpec{&model::keys::capacity, false});
});

}  // namespace gputopo::discovery
