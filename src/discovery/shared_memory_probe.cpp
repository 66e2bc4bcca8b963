#include <algorithm>

#include "analysis/cluster.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes.hpp"

namespace gputopo::discovery {
namespace {

// Shared memory: the size the driver reports (per SM, with the per-block limits as evidence) and
// the latency of a warm chase in it.
class SharedMemoryProbe final : public Probe {
 public:
  SharedMemoryProbe() : Probe("shared.latency", {"shared"}, {}) {}

  void run(Context& ctx) override {
    const auto& info = ctx.info();
    auto size = model::Attribute::api(info.shared_per_sm_bytes, "B");
    size.evidence = {{"perBlock", info.shared_per_block_bytes},
                     {"perBlockOptIn", info.shared_per_block_optin_bytes}};
    ctx.put("shared", "size", std::move(size));

    constexpr std::uint64_t kBytes = 4096;
    constexpr std::uint32_t kStride = 32;
    device::ChaseBatch batch;
    const int sms = std::min(4, std::max(info.sm_count, 1));
    for (int i = 0; i < sms; ++i)
      batch.requests.push_back(chase_request(device::Space::Shared, kBytes, kStride, 1, 1024));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    const auto sample = pooled_latencies(result);
    double overhead = 0;
    for (const auto& r : result.results) overhead = std::max(overhead, r.overhead_cycles);
    const auto levels = analysis::cluster_levels(sample);
    const double confidence = levels.levels.empty() ? 0.0 : levels.levels.front().weight;
    put_latency(ctx, "shared", "latency", sample, overhead, result.conditions,
                "pchase-latency in shared memory, median of " + std::to_string(sample.size()) +
                    " timed loads, timing overhead subtracted",
                confidence);
  }
};

}  // namespace

std::unique_ptr<Probe> make_shared_memory_probe() { return std::make_unique<SharedMemoryProbe>(); }

}  // namespace gputopo::discovery
