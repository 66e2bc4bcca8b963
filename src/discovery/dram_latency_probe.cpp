#include "discovery/context.hpp"
#include "discovery/l2_dram_probes.hpp"
#include "discovery/l2_sweep.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kLoads = 1024;

// Device memory: the size the driver reports, and the latency of a load that misses the whole L2
// in a working set larger than it: a warm chase over twice the API L2 size at line stride, so that
// every load is an L2 capacity miss (a cold chase over a small array reads about the same on an
// H100 and an H200, 549 and 697 cycles).
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
    const auto level = dominant_level(sample);
    const std::string method = what + ", " + std::to_string(kLoads) + " loads at " +
                               std::to_string(stride) + " B stride on SM " +
                               std::to_string(result.results.front().sm) +
                               ", statistics of the dominant latency level";
    put_latency(ctx, "dram", "latency", level.samples, result.results.front().overhead_cycles,
                result.conditions, method, level.weight, join(weaker));
    add_evidence(ctx, "dram", "latency", "sm", result.results.front().sm);
  }
};

}  // namespace

std::unique_ptr<Probe> make_dram_latency_probe(std::vector<std::string> needs) {
  return std::make_unique<DramLatencyProbe>(std::move(needs));
}

}  // namespace gputopo::discovery
