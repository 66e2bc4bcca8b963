#include "discovery/context.hpp"
#include "discovery/l2_dram_probes.hpp"
#include "discovery/l2_sweep.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kLoads = 1024;

// Device memory: the size the driver reports, and the latency of cold loads. Before a chase on the
// L2 space the L2 is flushed, and without warm-up every load at fetch-granularity stride (or
// wider) reaches a granule not fetched yet, so each one is served by device memory.
class DramLatencyProbe final : public Probe {
 public:
  explicit DramLatencyProbe(std::vector<std::string> needs)
      : Probe("dram.latency", {"dram"}, std::move(needs)) {}

  void run(Context& ctx) override {
    auto size = model::Attribute::api(ctx.info().global_memory_bytes, "B");
    size.method = "cudaDeviceProp::totalGlobalMem";
    ctx.put("dram", "size", size);

    std::vector<std::string> weaker;
    const std::uint32_t stride = fetch_granularity_or(ctx, l2_target(), 32, weaker);
    device::ChaseBatch batch;
    batch.requests.push_back(
        l2_chase(std::uint64_t{stride} * kLoads, stride, 0, kLoads, kLatencySm));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    const auto sample = latencies(result.results.front());
    const auto level = dominant_level(sample);
    const std::string method = "cold pchase on the L2 space (L2 flushed, no warm-up), " +
                               std::to_string(kLoads) + " loads at " + std::to_string(stride) +
                               " B stride on SM " + std::to_string(result.results.front().sm) +
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
