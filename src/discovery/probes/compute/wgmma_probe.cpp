#include <array>
#include <string>
#include <vector>

#include "device/compute_request.hpp"
#include "discovery/context.hpp"
#include "discovery/probes/compute/compute_batch.hpp"
#include "discovery/probes/compute/op_keys.hpp"
#include "discovery/probes/compute/pipeline_probe.hpp"
#include "discovery/probes/compute/slope.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::array kOps{device::ComputeOp::WgmmaBf16, device::ComputeOp::WgmmaE4M3,
                          device::ComputeOp::WgmmaE5M2};
// Two warpgroups: while one waits on its group of products, the other issues.
constexpr std::uint32_t kWgmmaWarps = 8;

// What one warpgroup instruction of `op` multiplies, for the method.
std::string product(device::ComputeOp op) {
  switch (op) {
    case device::ComputeOp::WgmmaE4M3:
      return "m64n256k32 FP8 (E4M3)";
    case device::ComputeOp::WgmmaE5M2:
      return "m64n256k32 FP8 (E5M2)";
    default:
      return "m64n256k16 BF16";
  }
}

// Writes compute.<op>Throughput, <op>PerClkPerSm and <op>Tflops for wgmmaBf16, wgmmaE4m3 and
// wgmmaE5m2: Hopper's warpgroup MMA (sm_90a) as one block of two warpgroups streams BF16
// m64n256k16 or FP8 (E4M3, E5M2) m64n256k32 products.
class WgmmaProbe final : public Probe {
 public:
  WgmmaProbe() : Probe("wgmma", {}) {
    std::vector<Finding> writes;
    for (const auto op : kOps) {
      const OpKeys& k = op_keys(op);
      for (const model::Key* key : {k.throughput, k.per_clk, k.tflops})
        writes.push_back(compute(*key));
    }
    declare({}, std::move(writes));
  }

  // Each type in a batch of its own, so that a recording of one still replays.
  void run(Context& ctx) override {
    for (const auto op : kOps) run_op(ctx, op);
  }

 private:
  static void run_op(Context& ctx, device::ComputeOp op) {
    const auto& o = device::op_info(op);
    const std::vector<device::ComputeRequest> items = {
        {op, kThroughputShortSteps, 1, kWgmmaWarps, 1, std::nullopt}};
    std::string why;
    const auto r = run_compute_batch(
        ctx, two_length_batch(items, kPipelineRepeats, kThroughputShortSteps, kThroughputLongSteps),
        why);
    const OpKeys& k = op_keys(op);
    if (!r) {
      for (const model::Key* key : {k.throughput, k.per_clk, k.tflops})
        ctx.put_compute(*key, unmeasured(*key, why));
      return;
    }
    const Slope s =
        item_slope(*r, 0, 1, kPipelineRepeats, kThroughputShortSteps, kThroughputLongSteps);
    const double threads = 32.0 * kWgmmaWarps;
    auto thr = model::Attribute::measured(
        threads / s.value, std::string(k.throughput->unit),
        "one block of two warpgroups, each streaming wgmma.mma_async " + product(op) +
            " products from shared memory into 128 FP32 registers a thread, 32 a commit group, "
            "one group left in flight; thread instructions per clock over chains of 64 and 256 "
            "steps, the median of 5 repeats",
        s.confidence);
    thr.interval = model::Interval{threads / s.hi, threads / s.lo};
    thr.evidence = {{"cyclesPerStep", s.value}, {"warps", kWgmmaWarps}, {"sass", o.sass}};
    ctx.put_compute(*k.throughput, thr);
    put_tensor_rates(ctx, o, thr, r->conditions);
  }
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Compute, 80, Made::Once,
                       [](const Site&) { return std::make_unique<WgmmaProbe>(); });

}  // namespace gputopo::discovery
