#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "discovery/context.hpp"
#include "discovery/discovery_options.hpp"
#include "discovery/probes/compute/code_body_batch.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kFirstInstructions = 256;     // 4 KiB of SASS
constexpr std::uint32_t kLastInstructions = 1 << 16;  // 1 MiB
// A body costs more per instruction than the one half its size by this share and this many
// cycles: a level it no longer fits.
constexpr double kStepShare = 0.15;
constexpr double kStepCycles = 0.05;
// Halvings of each level's interval after the doubling sweep: an eighth of it.
constexpr int kRefineRounds = 3;

// A level: the largest body measured within it, the smallest past it, and the cost within.
struct CodeLevel {
  std::uint32_t within = 0;
  std::uint32_t past = 0;
  double cpi_within = 0;
  double cpi_past = 0;

  bool passed_by(double cpi) const { return cpi > cpi_within * (1 + kStepShare) + kStepCycles; }
  // Whether a body between the two sizes can still be measured (8 instructions apart), and which.
  bool open() const { return past - within > 8; }
  std::uint32_t mid() const { return (within + past) / 2 / 8 * 8; }
};

// Writes compute.instructionCacheSizes (--depth full): Wong et al.'s code-size sweep. One warp
// runs a loop of straight-line FFMAs (8 independent chains, so it issues every cycle) whose body
// doubles from 4 KiB to 1 MiB of SASS; a body that no longer fits an instruction-cache level costs
// more cycles per instruction.
class IcacheProbe final : public Probe {
 public:
  IcacheProbe() : Probe("instructionCaches", {}) {
    declare({}, {compute(keys::instructionCacheSizes)});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put_compute(model::keys::instructionCacheSizes,
                      model::Attribute::unavailable(model::Source::Measured, "B", why));
    };
    if (ctx.options().depth != Depth::Full)
      return fail(
          "not measured at --depth quick: the driver compiles a kernel of up to 1 MiB "
          "of code for each size (--depth full)");
    cpi_.clear();
    confidence_ = 1;
    std::vector<std::uint32_t> sizes;
    for (std::uint32_t n = kFirstInstructions; n <= kLastInstructions; n *= 2) sizes.push_back(n);
    std::string why;
    if (!measure(ctx, sizes, why)) return fail(why);
    std::vector<CodeLevel> levels;
    for (std::size_t k = 1; k < sizes.size(); ++k) {
      const CodeLevel l{sizes[k - 1], sizes[k], cpi_[sizes[k - 1]], cpi_[sizes[k]]};
      if (l.passed_by(l.cpi_past)) levels.push_back(l);
    }
    // A device that refuses the halving (a recording made before it) keeps the doubling's levels.
    for (int round = 0; round < kRefineRounds && why.empty(); ++round) refine(ctx, levels, why);
    put(ctx, levels, why);
  }

 private:
  // Cycles per instruction of each body size, into cpi_.
  bool measure(Context& ctx, const std::vector<std::uint32_t>& sizes, std::string& why) {
    std::vector<device::ComputeRequest> items;
    for (const std::uint32_t n : sizes) items.push_back(code_body(n));
    const auto passes = cycles_per_pass(ctx, items, why);
    if (!passes) return false;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      cpi_[sizes[k]] = (*passes)[k].value / sizes[k];
      confidence_ = std::min(confidence_, (*passes)[k].confidence);
    }
    return true;
  }

  // One bisection round of every level still wider than 8 instructions, in one batch; `why`
  // where the device refuses it.
  void refine(Context& ctx, std::vector<CodeLevel>& levels, std::string& why) {
    std::vector<std::uint32_t> mids;
    for (const CodeLevel& l : levels)
      if (l.open()) mids.push_back(l.mid());
    if (mids.empty() || !measure(ctx, mids, why)) return;
    for (CodeLevel& l : levels) {
      if (!l.open()) continue;
      const std::uint32_t mid = l.mid();
      if (l.passed_by(cpi_[mid])) {
        l.past = mid;
        l.cpi_past = cpi_[mid];
      } else {
        l.within = mid;
      }
    }
  }

  void put(Context& ctx, const std::vector<CodeLevel>& levels, const std::string& unrefined) const {
    model::Json table = model::Json::array();
    for (const auto& [n, cpi] : cpi_)
      table.push_back({{"bytes", n * kSassInstructionBytes}, {"cyclesPerInstruction", cpi}});
    model::Json found = model::Json::array();
    model::Json value = model::Json::array();
    for (const CodeLevel& l : levels) {
      const double lo = l.within * kSassInstructionBytes;
      const double hi = l.past * kSassInstructionBytes;
      found.push_back({{"atLeastBytes", lo},
                       {"atMostBytes", hi},
                       {"cyclesPerInstructionWithin", l.cpi_within},
                       {"cyclesPerInstructionPast", l.cpi_past}});
      value.push_back(model::Json::array({lo, hi}));
    }
    auto a = model::Attribute::measured(
        value, "B",
        "one warp, a loop of straight-line FFMAs over 8 chains (PTX compiled by the driver), the "
        "body doubled from 4 KiB to 1 MiB of SASS; cycles per instruction over 4 and 16 passes, "
        "the median of 5 repeats; a level ends where a body costs 15 % more per instruction "
        "than the largest within it: between the two sizes, halved 3 times",
        confidence_);
    a.evidence = {{"bySize", table}, {"levels", found}};
    if (!unrefined.empty()) a.evidence["notHalved"] = unrefined;
    if (levels.empty())
      a.reason =
          "no rise between 4 KiB and 1 MiB of code: every level holds 1 MiB, or none "
          "holds 4 KiB";
    ctx.put_compute(model::keys::instructionCacheSizes, std::move(a));
  }

  std::map<std::uint32_t, double> cpi_;  // by instructions
  double confidence_ = 1;
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Compute, 90, Made::Once,
                       [](const Site&) { return std::make_unique<IcacheProbe>(); });

}  // namespace gputopo::discovery
