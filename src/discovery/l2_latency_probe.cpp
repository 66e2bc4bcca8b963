#include <algorithm>

#include "analysis/cluster.hpp"
#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/l2_dram_probes.hpp"
#include "discovery/l2_sweep.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kLoads = 1024;

// The far level of the chase past one segment: the two chases' samples are clustered together,
// and the far level is the most populous level above the near chase's level. Part of such a chase
// may still hit near (about half of them on an H100);
// the confidence is the far level's share of the loads that did not hit near.
struct FarLevel {
  std::vector<double> samples;
  double weight = 0;
  double near_share = 0;
};

FarLevel far_level(const std::vector<double>& near, const std::vector<double>& far) {
  FarLevel out;
  std::vector<double> pooled = near;
  pooled.insert(pooled.end(), far.begin(), far.end());
  const auto levels = analysis::cluster_levels(pooled);
  if (levels.levels.empty() || near.empty() || far.empty()) return out;
  std::vector<std::size_t> count(levels.levels.size(), 0);
  for (double v : near) ++count[levels.classify(v)];
  const auto near_level =
      static_cast<std::size_t>(std::max_element(count.begin(), count.end()) - count.begin());
  std::fill(count.begin(), count.end(), 0);
  for (double v : far) ++count[levels.classify(v)];
  std::size_t best = near_level;
  std::size_t above = 0;
  for (std::size_t i = near_level + 1; i < count.size(); ++i) {
    above += count[i];
    if (best == near_level || count[i] > count[best]) best = i;
  }
  out.near_share = static_cast<double>(count[near_level]) / static_cast<double>(far.size());
  if (best == near_level || above == 0) return out;
  for (double v : far)
    if (levels.classify(v) == best) out.samples.push_back(v);
  out.weight = static_cast<double>(count[best]) / static_cast<double>(above);
  return out;
}

// Two warm chases at line stride on one SM, every load a new line: one over a quarter of a segment
// (near hits) and, on a segmented L2, one halfway between one segment and the whole L2 (the near
// segment thrashes, the far segments hold the rest: far hits). The near latency is the dominant
// level of its chase, the far one the level above it (far_level). The miss penalty is the
// device-memory latency minus the near hit latency, both measured on the same SM.
class L2LatencyProbe final : public Probe {
 public:
  explicit L2LatencyProbe(std::vector<std::string> needs)
      : Probe("l2.latency", {"l2"}, std::move(needs)) {}

  void run(Context& ctx) override {
    const Input segment = ctx.input("l2", "segmentSize");
    const Input count = ctx.input("l2", "segmentCount");
    std::vector<std::string> weaker;
    const std::uint32_t stride = l2_line_or_fetch(ctx, weaker);
    std::uint64_t near_bytes = 0;
    if (segment) {
      near_bytes = static_cast<std::uint64_t>(*segment.value / 4);
    } else {
      near_bytes = ctx.info().l2_bytes / 8;
      weaker.push_back(segment.why + "; near array " + std::to_string(near_bytes) +
                       " B (1/8 of the API L2)");
    }
    near_bytes = round_up(std::clamp<std::uint64_t>(near_bytes, std::uint64_t{stride} * 256,
                                                    std::uint64_t{stride} * 4 * kLoads),
                          stride);
    device::ChaseBatch batch;
    batch.requests.push_back(l2_chase(near_bytes, stride, 1, kLoads, kLatencySm));
    const bool far = segment && count && *count.value > 1;
    std::uint64_t far_bytes = 0;
    if (far) {
      far_bytes =
          round_up(static_cast<std::uint64_t>(*segment.value * (1 + *count.value) / 2), stride);
      batch.requests.push_back(l2_chase(far_bytes, stride, 1, kLoads, kLatencySm));
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    const std::string reason = join(weaker);

    const auto& near_result = result.results.front();
    const auto near = dominant_level(latencies(near_result));
    put_latency(ctx, "l2", "nearLatency", near.samples, near_result.overhead_cycles,
                result.conditions, method(near_bytes, stride, near_result.sm), near.weight, reason);
    add_evidence(ctx, "l2", "nearLatency", "sm", near_result.sm);

    if (far) {
      const auto& far_result = result.results[1];
      const auto level = far_level(latencies(near_result), latencies(far_result));
      if (level.samples.empty()) {
        ctx.put("l2", "farLatency",
                model::Attribute::unavailable(
                    model::Source::Measured, "cycles",
                    "no load of the chase past one segment was slower than a near hit"));
      } else {
        put_latency(ctx, "l2", "farLatency", level.samples, far_result.overhead_cycles,
                    result.conditions, method(far_bytes, stride, far_result.sm), level.weight,
                    reason);
        add_evidence(ctx, "l2", "farLatency", "sm", far_result.sm);
        add_evidence(ctx, "l2", "farLatency", "nearHitShare", level.near_share);
      }
    } else {
      const std::string why = !segment || !count ? "needs the segment size and count: " +
                                                       (segment ? count.why : segment.why)
                                                 : "the L2 has one segment: there is no far level";
      ctx.put("l2", "farLatency",
              model::Attribute::unavailable(model::Source::Measured, "cycles", why));
    }
    put_miss_penalty(ctx, near, result.conditions);
  }

 private:
  static std::string method(std::uint64_t bytes, std::uint32_t stride, int sm) {
    return "warm pchase on the L2 space over " + std::to_string(bytes) + " B at " +
           std::to_string(stride) + " B stride on SM " + std::to_string(sm) +
           ", statistics of the dominant latency level, timing overhead subtracted";
  }

  static void put_miss_penalty(Context& ctx, const DominantLevel& near,
                               const device::RunConditions& conditions) {
    const auto* dram = ctx.get("dram", "latency");
    if (!dram || !dram->available() || near.samples.empty()) {
      ctx.put("l2", "missPenalty",
              model::Attribute::unavailable(model::Source::Measured, "cycles",
                                            "needs the device-memory and near-hit latencies"));
      return;
    }
    const double hit = analysis::median(near.samples);
    const double miss = dram->value.get<double>();
    auto a = model::Attribute::measured(
        miss - hit, "cycles",
        "median device-memory (cold) latency minus median near-hit latency, same SM",
        std::min(near.weight, dram->confidence.value_or(0)));
    a.evidence = {{"missMedian", miss}, {"hitMedian", hit}};
    ctx.put("l2", "missPenalty", a);
    if (const auto ns = ctx.ns_per_cycle(conditions)) {
      auto b = a;
      b.value = (miss - hit) * *ns;
      b.unit = "ns";
      b.evidence["nsPerCycle"] = *ns;
      ctx.put("l2", "missPenaltyNs", b);
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_l2_latency_probe(std::vector<std::string> needs) {
  return std::make_unique<L2LatencyProbe>(std::move(needs));
}

}  // namespace gputopo::discovery
