#include <algorithm>

#include "discovery/context.hpp"
#include "discovery/l2_dram_probes.hpp"
#include "discovery/l2_sweep.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kLoads = 1024;
// A latency level holding at least this share of the loads is a path of its own, not a tail.
constexpr double kSubstantial = 0.2;

// Device memory: the size the driver reports, and the latency of a load that misses the whole L2
// in a working set larger than it: a warm chase over twice the API L2 size at line stride, so that
// every load is an L2 capacity miss (a cold chase over a small array reads about the same on an
// H100 and an H200, 549 and 697 cycles). On a partitioned L2 the misses take paths of different
// length (through the near or the far partition, alternating by address), so the sample has
// several levels of comparable weight; the dominant one flips between runs. The latency reported
// is that of the slowest level holding a substantial share of the loads, with every level in the
// evidence.
class DramLatencyProbe final : public Probe {
 public:
  explicit DramLatencyProbe(std::vector<std::string> needs)
      : Probe("dram.latency", {"dram"}, std::move(needs)) {}

  void run(Context& ctx) override {
    auto size = model::Attribute::api(ctx.info().global_memory_bytes, "B");
    size.method = "cudaDeviceProp::totalGlobalMem";
    ctx.put("dram", "size", size);

    std::vector<std::string> weaker;
    const std::uint32_t stride = l2_line_or_fetch(ctx, weaker);
    const std::uint64_t l2 = ctx.info().l2_bytes;
    device::ChaseBatch batch;
    std::string what;
    if (l2 > 0) {
      batch.requests.push_back(l2_chase(round_up(2 * l2, stride), stride, 1, kLoads, kLatencySm));
      what = "warm pchase on the L2 space over twice the API L2 size (every load an L2 miss)";
    } else {
      batch.requests.push_back(
          l2_chase(std::uint64_t{stride} * kLoads, stride, 0, kLoads, kLatencySm));
      what = "cold pchase on the L2 space (no L2 size known; L2 flushed, no warm-up)";
      weaker.push_back("the driver reports no L2 size: cold loads instead of capacity misses");
    }
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    const auto sample = latencies(result.results.front());
    const auto level = slowest_substantial_level(sample, kSubstantial);
    const std::string method =
        what + ", " + std::to_string(kLoads) + " loads at " + std::to_string(stride) +
        " B stride on SM " + std::to_string(result.results.front().sm) +
        ", statistics of the slowest latency level holding at least " +
        std::to_string(static_cast<int>(kSubstantial * 100)) + " % of the loads";
    // Confidence: the chosen level's share against the heaviest level's (1 when it is the
    // heaviest or on a par with it).
    double heaviest = 0;
    model::Json levels = model::Json::array();
    for (const auto& l : level.levels.levels) {
      heaviest = std::max(heaviest, l.weight);
      levels.push_back({{"center", l.center}, {"weight", l.weight}, {"lo", l.lo}, {"hi", l.hi}});
    }
    const double confidence = heaviest > 0 ? std::min(1.0, level.weight / heaviest / 0.8) : 0.0;
    put_latency(ctx, "dram", "latency", level.samples, result.results.front().overhead_cycles,
                result.conditions, method, confidence, join(weaker));
    add_evidence(ctx, "dram", "latency", "sm", result.results.front().sm);
    add_evidence(ctx, "dram", "latency", "levels", std::move(levels));
    add_evidence(ctx, "dram", "latency", "levelWeight", level.weight);
  }
};

}  // namespace

std::unique_ptr<Probe> make_dram_latency_probe(std::vector<std::string> needs) {
  return std::make_unique<DramLatencyProbe>(std::move(needs));
}

}  // namespace gputopo::discovery
