#include <algorithm>
#include <numeric>

#include "analysis/inference.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// Two threads of one block, A on one warp and B on another, each warming three quarters of the
// cache: if they use the same cache instance B evicts A and A misses; if not, A hits. Warps are
// grouped by who disturbs whom (a significance test against A alone); the number of groups is
// the number of instances per SM.
// Requests of warp A timed against warp B (with B's own array, or a tiny one as the reference).
struct WarpPairs {
  device::ChaseRequest base;
  device::ChaseRequest other;
  device::ChaseRequest tiny;
  int warp = 32;

  device::InterferenceRequest operator()(int wa, int wb, bool with_b) const {
    device::InterferenceRequest r;
    r.placement = device::InterferenceRequest::Placement::TwoThreads;
    r.a = base;
    r.b = with_b ? other : tiny;
    r.thread_a = static_cast<std::uint32_t>(wa * warp);
    r.thread_b = static_cast<std::uint32_t>(wb * warp);
    return r;
  }
};

// Warps grouped by who disturbs whom; complete when every warp found its group.
struct Grouping {
  std::vector<std::vector<int>> groups;
  double worst_p = 0;  // largest p-value among "disturbed" decisions
  model::Json decisions;
  bool complete = false;
};

class AmountProbe final : public Probe {
 public:
  explicit AmountProbe(const Target& t) : Probe(probe_name(t, "amount"), {t.element}), t_(t) {
    declare({{t.element, &keys::globalLoadsCached},
             {t.element, &keys::fetchGranularity},
             {t.element, &keys::size},
             {t.element, &keys::lineSize}},
            {{t.element, &keys::countPerSm}, {t.element, &keys::carveout}});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put(t_.element, keys::countPerSm,
              model::Attribute::unavailable(model::Source::Measured, "", why));
    };
    if (auto why = gate(ctx, t_)) return fail(*why);
    const Input size = ctx.input(t_.element, keys::size);
    if (!size) return fail("needs the cache size: " + size.why);
    std::vector<std::string> weaker;
    const Input line = ctx.input(t_.element, keys::lineSize);
    const std::uint32_t stride =
        line ? static_cast<std::uint32_t>(*line.value) : fetch_granularity_or(ctx, t_, 32, weaker);
    const std::uint64_t bytes = round_up(static_cast<std::uint64_t>(*size.value * 0.75), stride);
    const int warp = std::max(ctx.info().warp_size(), 1);
    const int warps = std::max(ctx.info().max_threads_per_block() / warp, 1);
    if (warps < 2) return fail("a block has a single warp");

    // B's array differs from A's by one element: a backend may share identical arrays (the CUDA
    // backend does for constant memory), and B must warm its own data.
    const WarpPairs pairs{one_pass_request(t_.space, bytes, stride),
                          one_pass_request(t_.space, bytes + stride, stride),
                          chase_request(t_.space, stride, stride, 1, 16), warp};
    const Grouping grouping = group_warps(ctx, warps, pairs);
    const auto& groups = grouping.groups;
    if (!grouping.complete) return fail("more than 8 groups of warps; the amount test gave up");

    const bool equal = std::all_of(groups.begin(), groups.end(), [&](const auto& g) {
      return g.size() == groups.front().size();
    });
    double confidence = 1.0 - grouping.worst_p;
    if (!equal) {
      confidence *= 0.5;
      weaker.push_back("warp groups differ in size");
    }
    auto a = model::Attribute::measured(static_cast<int>(groups.size()), "",
                                        "two-thread interference across warps", confidence);
    a.reason = join(weaker);
    model::Json g = model::Json::array();
    for (const auto& grp : groups) g.push_back(grp);
    a.evidence = {
        {"warpGroups", g}, {"arrayBytes", bytes}, {"decisions", grouping.decisions.size()}};
    ctx.put(t_.element, keys::countPerSm, std::move(a));
  }

 private:
  // Groups the warps by who disturbs whom: each round takes the first ungrouped warp as A and
  // tests it against every other ungrouped warp, at most 8 rounds.
  Grouping group_warps(Context& ctx, int warps, const WarpPairs& pairs) const {
    std::vector<int> group_of(static_cast<std::size_t>(warps), -1);
    std::vector<std::vector<int>> groups;
    double worst_p = 0;  // largest p-value among "disturbed" decisions
    model::Json decisions = model::Json::array();
    for (int round = 0; round < 8; ++round) {
      const auto it = std::find(group_of.begin(), group_of.end(), -1);
      if (it == group_of.end()) break;
      const int a = static_cast<int>(it - group_of.begin());
      std::vector<int> others;
      for (int w = 0; w < warps; ++w)
        if (w != a && group_of[static_cast<std::size_t>(w)] == -1) others.push_back(w);
      group_of[static_cast<std::size_t>(a)] = static_cast<int>(groups.size());
      groups.push_back({a});
      if (others.empty()) continue;
      device::InterferenceBatch batch;
      batch.carveout_percent = carveout_for(ctx, t_);
      batch.requests.push_back(pairs(a, others.front(), false));  // reference: A with a tiny B
      for (int w : others) batch.requests.push_back(pairs(a, w, true));
      ctx.expect_batches(1);
      const auto result = ctx.interfere(batch);
      record_carveout(ctx, t_, result.conditions);
      const auto reference = latencies(result.results.front());
      for (std::size_t i = 0; i < others.size(); ++i) {
        const auto timed = latencies(result.results[i + 1]);
        const auto d = analysis::disturbance_test(reference, timed);
        if (d.disturbed) {
          group_of[static_cast<std::size_t>(others[i])] = static_cast<int>(groups.size()) - 1;
          groups.back().push_back(others[i]);
          worst_p = std::max(worst_p, d.p_value);
        }
        decisions.push_back({{"warpA", a},
                             {"warpB", others[i]},
                             {"disturbed", d.disturbed},
                             {"pValue", d.p_value},
                             {"effect", d.effect}});
      }
    }
    const bool complete = std::find(group_of.begin(), group_of.end(), -1) == group_of.end();
    return {std::move(groups), worst_p, std::move(decisions), complete};
  }

  Target t_;
};

}  // namespace

// Two threads on different warps evicting each other -> instances per SM.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 80, Made::PerTarget,
                       [](const Site& s) -> std::unique_ptr<Probe> {
                         if (s.target->level != 1) return nullptr;
                         return std::make_unique<AmountProbe>(*s.target);
                       });

}  // namespace gputopo::discovery
