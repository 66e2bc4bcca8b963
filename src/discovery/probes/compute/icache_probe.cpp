#include "discovery/probes/compute/icache_probe.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "device/compute_request.hpp"
#include "discovery/context.hpp"
#include "discovery/options.hpp"
#include "discovery/probes/compute/compute_batch.hpp"
#include "discovery/probes/compute/pipeline_probe.hpp"
#include "discovery/probes/compute/slope.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kFirstInstructions = 256;     // 4 KiB of SASS
constexpr std::uint32_t kLastInstructions = 1 << 16;  // 1 MiB
constexpr double kInstructionBytes = 16;              // every sm_70+ SASS instruction
// 4 and 16 passes over the body (a step is 1/32 of a pass).
constexpr std::uint32_t kShortSteps = 4 * device::kComputeStepsPerTrip;
constexpr std::uint32_t kLongSteps = 16 * device::kComputeStepsPerTrip;
// A body costs more per instruction than the one half its size by this share and this many
// cycles: a level it no longer fits.
constexpr double kStepShare = 0.15;
constexpr double kStepCycles = 0.05;

class IcacheProbe final : public Probe {
 public:
  IcacheProbe() : Probe("instructionCaches", {}, {}) {}

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put_compute(model::keys::instructionCacheSizes,
                      model::Attribute::unavailable(model::Source::Measured, "B", why));
    };
    if (ctx.options().depth != Depth::Full)
      return fail(
          "not measured at --depth quick: the driver compiles a kernel of up to 1 MiB "
          "of code for each size (--depth full)");
    std::vector<device::ComputeRequest> items;
    std::vector<std::uint32_t> sizes;
    for (std::uint32_t n = kFirstInstructions; n <= kLastInstructions; n *= 2) {
      sizes.push_back(n);
      items.push_back({device::ComputeOp::CodeBody, kShortSteps, 1, 1, 1, n});
    }
    std::string why;
    const auto r = run_compute_batch(
        ctx, two_length_batch(items, kPipelineRepeats, kShortSteps, kLongSteps), why);
    if (!r) return fail(why);
    std::vector<double> cpi;
    double confidence = 1;
    model::Json table = model::Json::array();
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const Slope s = item_slope(*r, k, items.size(), kPipelineRepeats, kShortSteps, kLongSteps);
      cpi.push_back(s.value * device::kComputeStepsPerTrip / sizes[k]);
      confidence = std::min(confidence, s.confidence);
      table.push_back(
          {{"bytes", sizes[k] * kInstructionBytes}, {"cyclesPerInstruction", cpi.back()}});
    }
    put(ctx, sizes, cpi, table, confidence);
  }

 private:
  // Each rise past kStepShare between two sizes is a level of that many bytes, between them.
  static void put(Context& ctx, const std::vector<std::uint32_t>& sizes,
                  const std::vector<double>& cpi, const model::Json& table, double confidence) {
    model::Json levels = model::Json::array();
    model::Json value = model::Json::array();
    for (std::size_t k = 1; k < sizes.size(); ++k) {
      if (cpi[k] <= cpi[k - 1] * (1 + kStepShare) + kStepCycles) continue;
      const double lo = sizes[k - 1] * kInstructionBytes;
      const double hi = sizes[k] * kInstructionBytes;
      levels.push_back({{"atLeastBytes", lo},
                        {"atMostBytes", hi},
                        {"cyclesPerInstructionWithin", cpi[k - 1]},
                        {"cyclesPerInstructionPast", cpi[k]}});
      value.push_back(model::Json::array({lo, hi}));
    }
    auto a = model::Attribute::measured(
        value, "B",
        "one warp, a loop of straight-line FFMAs over 8 chains (PTX compiled by the driver), the "
        "body doubled from 4 KiB to 1 MiB of SASS; cycles per instruction over 4 and 16 passes, "
        "the median of 5 repeats; a level ends where a body costs 15 % more per instruction "
        "than the one half its size: its size lies between the two",
        confidence);
    a.evidence = {{"bySize", table}, {"levels", levels}};
    if (levels.empty())
      a.reason =
          "no rise between 4 KiB and 1 MiB of code: every level holds 1 MiB, or none "
          "holds 4 KiB";
    ctx.put_compute(model::keys::instructionCacheSizes, std::move(a));
  }
};

}  // namespace

std::unique_ptr<Probe> make_icache_probe() { return std::make_unique<IcacheProbe>(); }

}  // namespace gputopo::discovery
