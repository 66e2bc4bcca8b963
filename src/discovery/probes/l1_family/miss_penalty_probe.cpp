#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <span>

#include "analysis/cluster.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// A footprint past which per-load samples put more than this share of the loads at a level beyond
// the next one (the next level overflowed too) does not measure this cache's misses.
constexpr double kMaxBeyond = 0.05;
// Nor one where this cache still served more than this share (the mixture is then mostly hits).
constexpr double kMaxHits = 0.5;
// Levels closer than this factor are one here: one jittery level (the `noisy` preset's L2 hits,
// 81-134 cycles per load) must not read as a level past the next, while the next levels behind
// an SM cache lie 1.5 times or more apart (a constant L1.5 and the L2: 62 and 94 per load on
// `est-const-small`; 91 and 270 on the H100).
constexpr double kLevelRatio = 1.4;

// Where a footprint's loads went, from per-load samples clustered with an all-hit reference.
struct Served {
  double hits = 0;    // this cache (the reference's level and below)
  double beyond = 0;  // past the next level
};

// Chains over four and six times the cache at the line size (every load a new line, so in an LRU
// or FIFO cache every load misses here and is served by the next level); the penalty is their
// latency minus the hit latency. Per-load samples over the same footprints check that the next
// level held them; where it did not (a next level smaller than four times this cache), chains
// over 1.5, 2 and 3 times the cache are taken instead. Loads this cache still served (random
// replacement) are taken out of each chain (FasterHits).
class MissPenaltyProbe final : public Probe {
 public:
  explicit MissPenaltyProbe(const Target& t)
      : Probe(probe_name(t, "missPenalty"), {t.element}), t_(t) {
    declare({{t.element, &keys::globalLoadsCached},
             {t.element, &keys::fetchGranularity},
             {t.element, &keys::size},
             {t.element, &keys::latency},
             {t.element, &keys::lineSize}},
            {{t.element, &keys::missPenalty},
             {t.element, &keys::missPenaltyNs},
             {t.element, &keys::carveout}});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put(t_.element, keys::missPenalty,
              model::Attribute::unavailable(model::Source::Measured, "cycles", why));
    };
    if (auto why = gate(ctx, t_)) return fail(*why);
    const Input size = ctx.input(t_.element, keys::size);
    if (!size) return fail("needs the cache size: " + size.why);
    const auto* hit = ctx.get(t_.element, keys::latency);
    if (!hit || !hit->available()) return fail("needs the hit latency");
    std::vector<std::string> weaker;
    const Input line = ctx.input(t_.element, keys::lineSize);
    std::uint32_t stride = 0;
    if (line) {
      stride = static_cast<std::uint32_t>(*line.value);
    } else {
      stride = fetch_granularity_or(ctx, t_, 32, weaker);
      weaker.push_back(line.why + "; stride " + std::to_string(stride) + " B");
    }
    stride = chain_stride(t_.space, stride);
    const auto footprints = footprints_of(*size.value, stride, {4.0, 6.0});
    if (static_cast<double>(footprints.front()) < 1.5 * *size.value)
      return fail("the space cannot hold an array well past the cache");

    device::ChaseBatch batch = chains(ctx, footprints, stride);
    ctx.expect_batches(1);
    auto result = ctx.chase(batch);
    record_carveout(ctx, t_, result.conditions);
    const double hit_cycles = hit->value.get<double>();
    auto chosen = footprints;
    std::vector<double> hit_shares;
    if (!choose(ctx, *size.value, stride, chosen, result, hit_shares, weaker)) {
      return fail("not established: every footprint from 1.5 to 6 times the cache put over " +
                  std::to_string(std::lround(100 * kMaxBeyond)) +
                  " % of its loads past the next level or kept over half of them here");
    }
    const auto miss =
        chain_latency(result.results, chosen, FasterHits{hit_cycles, std::move(hit_shares)});
    if (!miss) return fail("the chains returned no timing");
    put(ctx, *miss, hit_cycles, *hit, size.value.has_value(), stride, chosen, result.conditions,
        join(weaker));
  }

 private:
  std::vector<std::uint64_t> footprints_of(double size, std::uint32_t stride,
                                           std::initializer_list<double> times) const {
    std::vector<std::uint64_t> out;
    for (const double t : times) {
      std::uint64_t bytes = round_up(static_cast<std::uint64_t>(size * t), stride);
      if (t_.space_limit_bytes) bytes = std::min(bytes, t_.space_limit_bytes);
      out.push_back(bytes);
    }
    return out;
  }

  // Chains over `footprints`, on the SM the L2 latencies are measured on (the next level's latency
  // depends on the SM).
  device::ChaseBatch chains(const Context& ctx, const std::vector<std::uint64_t>& footprints,
                            std::uint32_t stride) const {
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    for (const auto bytes : footprints) {
      auto r = chain_request(t_.space, bytes, stride, 1, 1024);
      r.sm = kLatencySm;
      batch.requests.push_back(r);
    }
    return batch;
  }

  // Per-load samples over an all-hit reference (half the cache) and each footprint: where each
  // footprint's loads went. nullopt where the device cannot run the batch (a replay of a
  // recording made without it).
  std::optional<std::vector<Served>> served(Context& ctx, double size, std::uint32_t stride,
                                            const std::vector<std::uint64_t>& footprints) const {
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    const auto half = round_up(static_cast<std::uint64_t>(size / 2), stride);
    std::vector<std::uint64_t> all{std::max<std::uint64_t>(half, stride)};
    all.insert(all.end(), footprints.begin(), footprints.end());
    for (const auto bytes : all) {
      auto r = chase_request(t_.space, bytes, stride, 1, 1024);
      r.sm = kLatencySm;
      batch.requests.push_back(r);
    }
    device::ChaseBatchResult result;
    try {
      ctx.expect_batches(1);
      result = ctx.chase(batch);
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      return std::nullopt;
    }
    std::vector<std::vector<double>> samples;
    for (const auto& r : result.results) samples.push_back(latencies(r));
    std::vector<std::span<const double>> spans(samples.begin(), samples.end());
    analysis::ClusterOptions options;
    options.min_level_ratio = kLevelRatio;
    const auto levels = analysis::cluster_levels(spans, options);
    const auto in_ref = analysis::level_fractions(samples.front(), levels);
    const auto hit_level =
        static_cast<std::size_t>(std::max_element(in_ref.begin(), in_ref.end()) - in_ref.begin());
    std::vector<Served> out;
    for (std::size_t i = 1; i < samples.size(); ++i) {
      const auto f = analysis::level_fractions(samples[i], levels);
      Served s;
      for (std::size_t k = 0; k < f.size(); ++k) {
        if (k <= hit_level) s.hits += f[k];
        if (k > hit_level + 1) s.beyond += f[k];
      }
      out.push_back(s);
    }
    return out;
  }

  static bool usable(const Served& s) { return s.beyond <= kMaxBeyond && s.hits <= kMaxHits; }

  // Keeps the footprints whose loads the next level served (with the share this cache still
  // served, for FasterHits); where neither of 4 and 6 times qualifies, runs 1.5, 2 and 3 times and
  // keeps those that do. False where none does.
  bool choose(Context& ctx, double size, std::uint32_t stride, std::vector<std::uint64_t>& chosen,
              device::ChaseBatchResult& result, std::vector<double>& hit_shares,
              std::vector<std::string>& weaker) const {
    const auto first = served(ctx, size, stride, chosen);
    if (!first) {
      weaker.push_back(
          "per-load samples not run (the device could not): the chains are taken "
          "to miss into the next level alone");
      return true;
    }
    if (keep(*first, chosen, result, hit_shares)) return true;
    auto closer = footprints_of(size, stride, {1.5, 2.0, 3.0});
    const auto again = served(ctx, size, stride, closer);
    if (!again) return false;
    ctx.expect_batches(1);
    result = ctx.chase(chains(ctx, closer, stride));
    chosen = closer;
    weaker.push_back(
        "4 and 6 times the cache reached past the next level: footprints of 1.5 to "
        "3 times it");
    return keep(*again, chosen, result, hit_shares);
  }

  // Drops the footprints (and their chains) that do not qualify; false where none is left.
  static bool keep(const std::vector<Served>& served, std::vector<std::uint64_t>& footprints,
                   device::ChaseBatchResult& result, std::vector<double>& hit_shares) {
    std::vector<std::uint64_t> kept;
    std::vector<device::ChaseResult> results;
    hit_shares.clear();
    for (std::size_t i = 0; i < served.size() && i < footprints.size(); ++i) {
      if (!usable(served[i])) continue;
      kept.push_back(footprints[i]);
      results.push_back(result.results[i]);
      hit_shares.push_back(served[i].hits);
    }
    if (kept.empty()) return false;
    footprints = std::move(kept);
    result.results = std::move(results);
    return true;
  }

  void put(Context& ctx, const ChainLatency& miss, double hit_cycles, const model::Attribute& hit,
           bool sized, std::uint32_t stride, const std::vector<std::uint64_t>& footprints,
           const device::RunConditions& conditions, const std::string& reason) const {
    const double penalty = miss.cycles - hit_cycles;
    auto a = model::Attribute::measured(
        penalty, "cycles",
        "dependent-chain latency over " + std::to_string(footprints.front()) + " to " +
            std::to_string(footprints.back()) + " B at " + std::to_string(stride) +
            " B stride (loads the next level serves, checked per load; loads still hitting here "
            "taken out) minus the hit latency",
        std::min({hit.confidence.value_or(0), miss.confidence, sized ? 1.0 : 0.0}));
    a.evidence = {
        {"missLatency", miss.cycles}, {"hitLatency", hit_cycles}, {"footprints", miss.evidence}};
    a.reason = reason;
    a.interval = model::difference(miss.interval, hit.interval);
    ctx.put(t_.element, keys::missPenalty, a);
    if (const auto ns = ctx.ns_per_cycle(conditions)) {
      auto b = a;
      b.value = penalty * *ns;
      b.interval = model::scaled(a.interval, *ns);
      b.unit = "ns";
      b.evidence["nsPerCycle"] = *ns;
      ctx.put(t_.element, keys::missPenaltyNs, b);
    }
  }

  Target t_;
};

}  // namespace

// Miss latency minus hit latency.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 70, Made::PerTarget,
                       [](const Site& s) -> std::unique_ptr<Probe> {
                         if (s.target->level != 1) return nullptr;
                         return std::make_unique<MissPenaltyProbe>(*s.target);
                       });

}  // namespace gputopo::discovery
