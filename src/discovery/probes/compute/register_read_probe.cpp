#include <algorithm>
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

// Registers an ffma reads (its chain and one more; the third operand is a uniform register) and
// an ffma3Reg reads (its chain and two of its own).
constexpr double kTwoReads = 2;
constexpr double kThreeReads = 3;
// Chains long enough (8 and 32 loop trips) that the trips' branches average out.
constexpr std::uint32_t kRegisterShortSteps = 256;
constexpr std::uint32_t kRegisterLongSteps = 1024;
// A third read costing less than this share of a cycle is not a limit.
constexpr double kNoExtraRead = 0.05;

constexpr const char* kNoRegisterBanks =
    "a bank conflict shows only between registers one chooses, and PTX cannot choose them "
    "(ptxas allocates registers); registerReadsPerClk is what PTX can ask";

constexpr const char* kRegisterReadMethod =
    "one warp, 8 independent FFMA chains a thread, cycles per FFMA between chains of 256 and "
    "1024 steps (the median of 5 repeats) for FFMAs reading three distinct vector registers "
    "(ffma3Reg) "
    "and two (ffma); reads per clock = 3 / (1 + the third register's extra cycles), the two-read "
    "FFMAs issuing one a clock";

// Reads per clock from cycles per FFMA of three-register and two-register FFMAs.
double reads_per_clk(double three, double two) {
  return kThreeReads / (1 + std::max(0.0, three - two));
}

// Writes compute.registerReadsPerClk: how many vector-register operands one warp's instructions
// read per clock, from one warp's independent FFMAs that read three distinct registers against
// ones that read two (the register-file experiment of Wong et al., without choosing registers).
class RegisterReadProbe final : public Probe {
 public:
  RegisterReadProbe() : Probe("registerReads", {}) {
    declare({}, {compute(keys::registerBanks), compute(keys::registerReadsPerClk)});
  }

  void run(Context& ctx) override {
    ctx.put_compute(model::keys::registerBanks,
                    model::Attribute::unavailable(model::Source::Measured, "", kNoRegisterBanks));
    const std::vector<device::ComputeRequest> items = {
        {ComputeOp::FFma32, kRegisterShortSteps, kThroughputIlp, 1, 1, std::nullopt},
        {ComputeOp::FFma3Reg, kRegisterShortSteps, kThroughputIlp, 1, 1, std::nullopt}};
    std::string why;
    const auto r = run_compute_batch(
        ctx, two_length_batch(items, kPipelineRepeats, kRegisterShortSteps, kRegisterLongSteps),
        why);
    if (!r) {
      ctx.put_compute(model::keys::registerReadsPerClk,
                      model::Attribute::unavailable(model::Source::Measured, "registers/clk", why));
      return;
    }
    const auto per_ffma = [&](std::size_t k) {
      Slope s = item_slope(*r, k, items.size(), kPipelineRepeats, kRegisterShortSteps,
                           kRegisterLongSteps);
      for (double* v : {&s.value, &s.lo, &s.hi}) *v /= kThroughputIlp;
      for (double& v : s.per_repeat) v /= kThroughputIlp;
      return s;
    };
    const Slope two = per_ffma(0);
    const Slope three = per_ffma(1);
    std::vector<double> per_repeat;
    for (std::size_t i = 0; i < two.per_repeat.size(); ++i)
      per_repeat.push_back(reads_per_clk(three.per_repeat[i], two.per_repeat[i]));
    const double value = reads_per_clk(three.value, two.value);
    const auto [lo, hi] = std::minmax_element(per_repeat.begin(), per_repeat.end());
    const bool limited = three.value - two.value >= kNoExtraRead;
    auto a = model::Attribute::measured(
        value, "registers/clk",
        std::string(kRegisterReadMethod) +
            (limited ? "" : "; the third register costs nothing: at least 3"),
        agreement((*hi - *lo) / value) * std::min(two.confidence, three.confidence));
    a.interval = model::Interval{*lo, limited ? *hi : kThreeReads};
    a.evidence = {{"cyclesPerFfmaTwoRegisters", two.value},
                  {"cyclesPerFfmaThreeRegisters", three.value},
                  {"baselineReads", kTwoReads},
                  {"atLeast", !limited},
                  {"perRepeat", per_repeat},
                  {"sass", "FFMA Rc, Ra, Rb, Rc against FFMA Rc, Rc, URx, Ry"}};
    ctx.put_compute(model::keys::registerReadsPerClk, std::move(a));
  }
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Compute, 40, Made::Once,
                       [](const Site&) { return std::make_unique<RegisterReadProbe>(); });

}  // namespace gputopo::discovery
