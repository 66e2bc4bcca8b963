#include <string>
#include <vector>

#include "device/compute_request.hpp"
#include "discovery/context.hpp"
#include "discovery/probes/compute/compute_batch.hpp"
#include "discovery/probes/compute/pipeline_probe.hpp"
#include "discovery/probes/compute/slope.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

using device::ComputeOp;

// The bandwidth request: a block of 32 warps, 8 chains a thread, all loading the other block's
// shared memory 4 bytes at a time.
constexpr std::uint32_t kBandwidthWarps = 32;
constexpr std::uint32_t kBandwidthChains = 8;
constexpr double kLoadBytes = 4;

constexpr const char* kClusterMethod =
    "clusters of two blocks (cudaLaunchKernelEx); cycles per step between chains of 256 and 1024 "
    "steps, the median of 5 repeats; ";

// Writes compute.dsmemLatency, dsmemReadBytesPerClkPerSm, clusterSyncLatency and
// clusterSyncBlockLatency: thread-block clusters of two blocks (sm_90), a dependent chain of
// loads from the other block's shared memory (distributed shared memory), the same with many
// chains in flight, and a chain of cluster barriers for blocks of one warp and of 32.
class ClusterProbe final : public Probe {
 public:
  ClusterProbe() : Probe("clusters", {}) {
    declare({}, {compute(keys::dsmemLatency), compute(keys::dsmemReadBytesPerClkPerSm),
                 compute(keys::clusterSyncLatency), compute(keys::clusterSyncBlockLatency),
                 compute(keys::clusterSyncRelaxedLatency)});
  }

  void run(Context& ctx) override {
    const std::uint32_t pair = device::kComputeClusterBlocks;
    const std::vector<device::ComputeRequest> items = {
        {ComputeOp::DsmemLoad, kLatencyShortSteps, 1, 1, pair, std::nullopt},
        {ComputeOp::DsmemLoad, kLatencyShortSteps, kBandwidthChains, kBandwidthWarps, pair,
         std::nullopt},
        {ComputeOp::ClusterSync, kLatencyShortSteps, 1, 1, pair, std::nullopt},
        {ComputeOp::ClusterSync, kLatencyShortSteps, 1, kBandwidthWarps, pair, std::nullopt}};
    std::string why;
    const auto r = run_compute_batch(
        ctx, two_length_batch(items, kPipelineRepeats, kLatencyShortSteps, kLatencyLongSteps), why);
    if (!r) {
      for (const auto* key :
           {&model::keys::dsmemLatency, &model::keys::dsmemReadBytesPerClkPerSm,
            &model::keys::clusterSyncLatency, &model::keys::clusterSyncBlockLatency,
            &model::keys::clusterSyncRelaxedLatency})
        ctx.put_compute(*key, model::Attribute::unavailable(model::Source::Measured, "", why));
      return;
    }
    const auto slope = [&](std::size_t k) {
      return item_slope(*r, k, items.size(), kPipelineRepeats, kLatencyShortSteps,
                        kLatencyLongSteps);
    };
    put(ctx, model::keys::dsmemLatency, slope(0), "cycles",
        "one warp a block, each thread a chain of ld.shared::cluster through the other block's "
        "shared memory (each word holds its own cluster address)");
    const Slope many = slope(1);
    const double per_step = kBandwidthWarps * 32.0 * kBandwidthChains * kLoadBytes;
    Slope bytes = many;
    bytes.value = per_step / many.value;
    bytes.lo = per_step / many.hi;
    bytes.hi = per_step / many.lo;
    put(ctx, model::keys::dsmemReadBytesPerClkPerSm, bytes, "B/clk",
        "32 warps a block, 8 chains of 4-byte ld.shared::cluster a thread: bytes a block reads "
        "from the other's shared memory per clock");
    put(ctx, model::keys::clusterSyncLatency, slope(2), "cycles",
        "one warp a block, each thread a chain of barrier.cluster.arrive/wait and an add");
    put(ctx, model::keys::clusterSyncBlockLatency, slope(3), "cycles",
        "32 warps a block, each thread a chain of barrier.cluster.arrive/wait and an add");
    put_relaxed(ctx, slope(2));
  }

 private:
  // The relaxed barrier in a batch of its own, so that recordings made before it still replay
  // the batch above; the difference from the full barrier is its release fence.
  static void put_relaxed(Context& ctx, const Slope& full) {
    const std::vector<device::ComputeRequest> items = {
        {ComputeOp::ClusterSyncRelaxed, kLatencyShortSteps, 1, 1, device::kComputeClusterBlocks,
         std::nullopt}};
    std::string why;
    const auto r = run_compute_batch(
        ctx, two_length_batch(items, kPipelineRepeats, kLatencyShortSteps, kLatencyLongSteps), why);
    if (!r) {
      ctx.put_compute(model::keys::clusterSyncRelaxedLatency,
                      model::Attribute::unavailable(model::Source::Measured, "cycles", why));
      return;
    }
    const Slope relaxed =
        item_slope(*r, 0, 1, kPipelineRepeats, kLatencyShortSteps, kLatencyLongSteps);
    auto a = measured(
        relaxed, "cycles",
        "one warp a block, each thread a chain of barrier.cluster.arrive.relaxed/wait and an add");
    a.evidence["releaseFenceCycles"] = full.value - relaxed.value;
    ctx.put_compute(model::keys::clusterSyncRelaxedLatency, std::move(a));
  }

  static model::Attribute measured(const Slope& s, const char* unit, const std::string& what) {
    auto a = model::Attribute::measured(s.value, unit, kClusterMethod + what, s.confidence);
    a.interval = model::Interval{s.lo, s.hi};
    return a;
  }

  static void put(Context& ctx, const model::Key& key, const Slope& s, const char* unit,
                  const std::string& what) {
    ctx.put_compute(key, measured(s, unit, what));
  }
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Compute, 70, Made::Once,
                       [](const Site&) { return std::make_unique<ClusterProbe>(); });

}  // namespace gputopo::discovery
