#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "analysis/cluster.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr int kSms = 2;  // SMs per footprint
// A level-2 target (the constant L1.5) may be shared by several SMs and lie nearer to some: its
// chains run on this many SMs spread over the GPU, each over every footprint, and the latency is
// the nearest SM's (on an H100, 93 cycles from some SMs, 98 from others).
constexpr int kSpreadSms = 4;
constexpr std::uint64_t kMaxLevelOneBytes = 64 * 1024;

// The latency of the SM nearest to a shared level: chains[f * sms + i] ran footprint f on the
// i-th SM; each SM's chains give its latency, the lowest wins; `by_sm` gets every SM's.
std::optional<ChainLatency> nearest_sm_latency(std::span<const device::ChaseResult> chains,
                                               std::span<const std::uint64_t> chained,
                                               const std::optional<FasterHits>& faster, int sms,
                                               model::Json& by_sm) {
  std::optional<ChainLatency> best;
  by_sm = model::Json::array();
  for (int i = 0; i < sms; ++i) {
    std::vector<device::ChaseResult> mine;
    std::vector<std::uint64_t> bytes;
    for (std::size_t c = static_cast<std::size_t>(i); c < chains.size();
         c += static_cast<std::size_t>(sms)) {
      mine.push_back(chains[c]);
      bytes.push_back(chained[c]);
    }
    auto one = chain_latency(mine, bytes, faster);
    if (!one) continue;
    by_sm.push_back({{"sm", mine.front().sm}, {"cycles", one->cycles}});
    if (!best || one->cycles < best->cycles) best = std::move(one);
  }
  return best;
}

// Hit latency: dependent chains over two footprints well inside the cache (a quarter and an eighth
// of it), on a few SMs at once, each timed as a whole; per-load chases over the larger footprint
// beside them say which level served the loads. A level-2 target chases arrays of 2, 4 and 8 times
// the level in front of it (each load a new line there) that fit its own capacity.
class LatencyProbe final : public Probe {
 public:
  explicit LatencyProbe(const Target& t) : Probe(probe_name(t, "latency"), {t.element}), t_(t) {
    declare(
        {{t.element, &keys::globalLoadsCached},
         {t.element, &keys::fetchGranularity},
         {t.element, &keys::size},
         {t.inner, &keys::size},
         {t.inner, &keys::lineSize},
         {t.inner, &keys::fetchGranularity},
         {t.inner, &keys::latency}},
        {{t.element, &keys::latency}, {t.element, &keys::latencyNs}, {t.element, &keys::carveout}});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put(t_.element, keys::latency,
              model::Attribute::unavailable(model::Source::Measured, "cycles", why));
    };
    if (auto why = gate(ctx, t_)) return fail(*why);
    std::vector<std::string> weaker;
    // A level-2 target chases a line of the level in front apart (below).
    std::uint32_t stride = t_.level == 1 ? fetch_granularity_or(ctx, t_, 32, weaker) : 0;
    const Input size = ctx.input(t_.element, keys::size);
    std::vector<std::uint64_t> footprints;
    if (t_.level == 1) {
      std::uint64_t bytes = std::uint64_t{stride} * 16;
      if (size)
        bytes = std::max(bytes, static_cast<std::uint64_t>(*size.value / 4));
      else
        weaker.push_back(size.why + "; used a " + std::to_string(bytes) + " B array");
      bytes = std::min(bytes, kMaxLevelOneBytes);
      footprints = {bytes / 2, bytes};
    } else {
      const Input inner = ctx.input(t_.inner, keys::size);
      if (!inner) return fail("needs the size of " + t_.inner + ": " + inner.why);
      const Input inner_line = ctx.input(t_.inner, keys::lineSize);
      const Input inner_fg = ctx.input(t_.inner, keys::fetchGranularity);
      stride = static_cast<std::uint32_t>(inner_line ? *inner_line.value
                                                     : (inner_fg ? *inner_fg.value : 64.0));
      if (!inner_line)
        weaker.push_back(t_.inner + " line size not established; stride " + std::to_string(stride) +
                         " B");
      for (const double times : {2.0, 4.0, 8.0}) {
        auto bytes = round_up(static_cast<std::uint64_t>(*inner.value * times), stride);
        if (size.value) bytes = std::min(bytes, static_cast<std::uint64_t>(*size.value * 0.75));
        footprints.push_back(bytes);
      }
    }
    stride = chain_stride(t_.space, stride);
    for (auto& f : footprints) {
      if (t_.space_limit_bytes) f = std::min(f, t_.space_limit_bytes);
      f = round_up(std::max<std::uint64_t>(f, stride), stride);
    }

    const Chains run = run_chains(ctx, footprints, stride);
    const auto& result = run.result;
    const auto& chained = run.chained;
    const int sms = run.sms;
    const bool spread = run.spread;
    const std::size_t per_load_first = chained.size();
    record_carveout(ctx, t_, result.conditions);

    const auto chains = std::span(result.results).first(per_load_first);
    const auto faster = t_.level > 1 ? front_hits(ctx, footprints, stride, weaker) : std::nullopt;
    model::Json by_sm;
    const auto latency = spread ? nearest_sm_latency(chains, chained, faster, sms, by_sm)
                                : chain_latency(chains, chained, faster);
    if (!latency) return fail("the chains returned no timing");
    std::vector<double> per_load;
    double overhead = 0;
    for (std::size_t i = per_load_first; i < result.results.size(); ++i) {
      const auto l = latencies(result.results[i]);
      per_load.insert(per_load.end(), l.begin(), l.end());
      overhead = std::max(overhead, result.results[i].overhead_cycles);
    }
    const auto loads = per_load_evidence(per_load, overhead);
    const double dominant =
        unsized_level_capped(loads.value("dominantLevelShare", 0.0), size, weaker);
    const std::string method =
        "dependent chain timed as a whole (cycles / loads) over " +
        std::to_string(footprints.front()) + " to " + std::to_string(footprints.back()) + " B at " +
        std::to_string(stride) + " B stride on " + std::to_string(sms) +
        (spread ? " SMs spread over the GPU, the nearest SM's" : " SMs each") +
        "; confidence: agreement of the footprints and the "
        "share of per-load samples in one level";
    put_chain_latency(ctx, t_.element, kLatencyKeys, *latency, result.conditions, method, dominant,
                      join(weaker));
    add_evidence(ctx, t_.element, keys::latency, "perLoad", loads);
    if (spread) add_evidence(ctx, t_.element, keys::latency, "bySm", by_sm);
  }

 private:
  // A level 2 at most twice the front's (a constant L1.5 1.4 times the L1 read the L2 behind it at
  // 0.75) holds none of the footprints, and nothing here tells that apart where its size is not
  // measured: the confidence stays under 0.5.
  double unsized_level_capped(double confidence, const Input& size,
                              std::vector<std::string>& weaker) const {
    if (t_.level == 1 || size.value) return confidence;
    weaker.push_back("the size of " + t_.element +
                     " is not measured, so the footprints may lie past it");
    return std::min(confidence, 0.4);
  }

  struct Chains {
    device::ChaseBatchResult result;
    std::vector<std::uint64_t> chained;  // the footprint of each chain, in order
    int sms = 0;
    bool spread = false;
  };
  // The chains over every footprint on `sms` SMs, then per-load chases of the largest. A level-2
  // target pins its chains to SMs spread over the GPU; a replay recorded before it did falls back
  // to chains on any SMs.
  Chains run_chains(Context& ctx, const std::vector<std::uint64_t>& footprints,
                    std::uint32_t stride) const {
    if (t_.level > 1) {
      try {
        return chains_on(ctx, footprints, stride, true);
      } catch (const device::Error&) {
      }
    }
    return chains_on(ctx, footprints, stride, false);
  }
  Chains chains_on(Context& ctx, const std::vector<std::uint64_t>& footprints, std::uint32_t stride,
                   bool spread) const {
    const int sm_count = std::max(ctx.info().sm_count(), 1);
    Chains out;
    out.spread = spread;
    out.sms = std::min(spread ? kSpreadSms : kSms, sm_count);
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    for (const auto bytes : footprints)
      for (int i = 0; i < out.sms; ++i) {
        batch.requests.push_back(chain_request(t_.space, bytes, stride, 2));
        if (spread) batch.requests.back().sm = i * sm_count / out.sms;
        out.chained.push_back(bytes);
      }
    for (int i = 0; i < out.sms; ++i)
      batch.requests.push_back(chase_request(t_.space, footprints.back(), stride, 2, 1024));
    ctx.expect_batches(1);
    out.result = ctx.chase(batch);
    return out;
  }

  // A level-2 target's chains still hit the level in front now and then where it replaces at
  // random: per-load samples over each distinct footprint, clustered with an all-hit reference
  // of the front level (half its size), give the share it served, which FasterHits takes out of
  // each chain with the front level's latency. nullopt (said in `weaker`) where the front level's
  // latency is not established or the device cannot run the batch (a replay without it).
  std::optional<FasterHits> front_hits(Context& ctx, const std::vector<std::uint64_t>& footprints,
                                       std::uint32_t stride,
                                       std::vector<std::string>& weaker) const {
    const Input front = ctx.input(t_.inner, keys::latency);
    const Input front_size = ctx.input(t_.inner, keys::size);
    if (!front || !front_size) return std::nullopt;
    std::vector<std::uint64_t> distinct;
    for (const auto f : footprints)
      if (std::find(distinct.begin(), distinct.end(), f) == distinct.end()) distinct.push_back(f);
    device::ChaseBatch batch;
    batch.carveout_percent = carveout_for(ctx, t_);
    std::vector<std::uint64_t> all{
        round_up(static_cast<std::uint64_t>(*front_size.value / 2), stride)};
    all.insert(all.end(), distinct.begin(), distinct.end());
    for (const auto bytes : all)
      batch.requests.push_back(chase_request(t_.space, bytes, stride, 2, 1024));
    device::ChaseBatchResult result;
    try {
      ctx.expect_batches(1);
      result = ctx.chase(batch);
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      weaker.push_back("the loads " + t_.inner +
                       " still served are not taken out (the device "
                       "could not run the per-load batch)");
      return std::nullopt;
    }
    std::vector<std::vector<double>> samples;
    for (const auto& r : result.results) samples.push_back(latencies(r));
    FasterHits out;
    out.cycles = *front.value;
    for (std::size_t i = 1; i < samples.size(); ++i)
      out.shares.push_back(analysis::share_in_level_of(samples.front(), samples[i]));
    return out;
  }

  Target t_;
};

}  // namespace

// Hit latency in cycles and ns.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 50, Made::PerTarget,
                       [](const Site& s) { return std::make_unique<LatencyProbe>(*s.target); });

}  // namespace gputopo::discovery
