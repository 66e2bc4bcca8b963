#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/least_squares.hpp"
#include "device/compute_request.hpp"
#include "discovery/context.hpp"
#include "discovery/probes/compute/compute_batch.hpp"
#include "discovery/probes/compute/pipeline_probe.hpp"
#include "discovery/probes/compute/slope.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint32_t kDivergeShortSteps = 32;
constexpr std::uint32_t kDivergeLongSteps = 128;
constexpr std::uint32_t kDivergePaths[] = {1, 2, 4, 8, 16, 32};
// The line is fitted from four paths on: below, what a path costs depends on how ptxas unrolled
// the loop over the paths (on the H100 the second path costs 168 cycles, the next ones 90 to 107).
constexpr std::uint32_t kDivergeFitFrom = 4;
// The join op runs at one path and at the most: its tail after the loop costs the same at both
// where the paths rejoin, kDivergeMostPaths times as much where they stay apart.
constexpr std::uint32_t kDivergeMostPaths = 32;
// Tail cost ratios (most paths over one) at or below which the paths rejoin, at or above which
// they stay apart; between, not established.
constexpr double kRejoinRatio = 2;
constexpr double kApartRatio = kDivergeMostPaths / 4.0;

// Writes compute.divergenceCyclesPerPath: what one more distinct path among a warp's lanes adds to
// a branch, from one warp looping over k paths (k = 1 to 32) with its lanes spread over them,
// against the same loop with every lane on one path (Wong et al.'s divergence experiment).
class DivergenceProbe final : public Probe {
 public:
  DivergenceProbe() : Probe("divergence", {}) {
    declare({}, {compute(keys::divergenceCyclesPerPath), compute(keys::divergenceReconverges)});
  }

  void run(Context& ctx) override {
    std::vector<device::ComputeRequest> items;
    for (const std::uint32_t k : kDivergePaths)
      for (const auto op : {device::ComputeOp::DivergeSpread, device::ComputeOp::DivergeUniform})
        items.push_back({op, kDivergeShortSteps, 1, 1, 1, k});
    for (const std::uint32_t k : {1u, kDivergeMostPaths})
      items.push_back({device::ComputeOp::DivergeJoin, kDivergeShortSteps, 1, 1, 1, k});
    std::string why;
    const auto r = run_compute_batch(
        ctx, two_length_batch(items, kPipelineRepeats, kDivergeShortSteps, kDivergeLongSteps), why);
    if (!r) {
      for (const model::Key* key :
           {&model::keys::divergenceCyclesPerPath, &model::keys::divergenceReconverges})
        ctx.put_compute(*key, model::Attribute::unavailable(model::Source::Measured, "", why));
      return;
    }
    std::vector<double> x, y;  // extra paths, extra cycles, from kDivergeFitFrom paths on
    double confidence = 1;
    model::Json table = model::Json::array();
    for (std::size_t i = 0; i < std::size(kDivergePaths); ++i) {
      const Slope spread = item_slope(*r, 2 * i, items.size(), kPipelineRepeats, kDivergeShortSteps,
                                      kDivergeLongSteps);
      const Slope uniform = item_slope(*r, 2 * i + 1, items.size(), kPipelineRepeats,
                                       kDivergeShortSteps, kDivergeLongSteps);
      const double extra = spread.value - uniform.value;
      if (kDivergePaths[i] >= kDivergeFitFrom) {
        x.push_back(kDivergePaths[i] - 1.0);
        y.push_back(extra);
      }
      confidence = std::min({confidence, spread.confidence, uniform.confidence});
      table.push_back({{"paths", kDivergePaths[i]},
                       {"spreadCycles", spread.value},
                       {"uniformCycles", uniform.value},
                       {"extraCycles", extra}});
    }
    // extra = first + per_path x (k - 1): the first divergence may cost more than later paths.
    const auto fit = analysis::least_squares_line(x, y);
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      worst = std::max(worst, std::abs(y[i] - (fit.intercept + fit.slope * x[i])) /
                                  std::max(std::abs(y[i]), 1e-9));
    confidence = std::min(confidence, agreement(worst));
    auto a = model::Attribute::measured(
        fit.slope, "cycles",
        "one warp; each lane loops over k paths (k = 1 to 32) and runs 16 dependent FFMAs on "
        "its own, lane & (k - 1), under a branch; cycles per step over chains of 32 and 128 steps, "
        "the median of 5 repeats; the same loop with every lane on one path subtracted; the "
        "slope of the difference against k - 1 from 4 paths on",
        confidence);
    a.interval = model::Interval{fit.slope * (1 - worst), fit.slope * (1 + worst)};
    a.evidence = {{"byPaths", table},
                  {"firstDivergenceCycles", fit.intercept},
                  {"worstRelativeResidual", worst}};
    ctx.put_compute(model::keys::divergenceCyclesPerPath, std::move(a));
    put_reconvergence(ctx, *r, items.size());
  }

 private:
  // The tail after the loop: the join op less the spread op at the same paths, at one path and at
  // the most (the items after the spread and uniform pairs).
  static void put_reconvergence(Context& ctx, const device::ComputeBatchResult& r,
                                std::size_t items) {
    const auto slope = [&](std::size_t i) {
      return item_slope(r, i, items, kPipelineRepeats, kDivergeShortSteps, kDivergeLongSteps);
    };
    const std::size_t pairs = std::size(kDivergePaths);
    const Slope join_one = slope(2 * pairs);
    const Slope join_most = slope(2 * pairs + 1);
    const Slope spread_one = slope(0);
    const Slope spread_most = slope(2 * (pairs - 1));
    const double tail_one = join_one.value - spread_one.value;
    const double tail_most = join_most.value - spread_most.value;
    const double ratio = tail_most / std::max(tail_one, 1e-9);
    const double confidence = std::min(
        {join_one.confidence, join_most.confidence, spread_one.confidence, spread_most.confidence});
    const model::Json evidence = {{"tailCyclesOnePath", tail_one},
                                  {"tailCyclesMostPaths", tail_most},
                                  {"mostPaths", kDivergeMostPaths},
                                  {"ratio", ratio}};
    const std::string method =
        "16 dependent FFMAs after the divergent loop (the join op less the loop alone), at 1 and " +
        std::to_string(kDivergeMostPaths) +
        " paths: the same where the paths rejoin after the branch, once a path where they stay "
        "apart";
    model::Attribute a;
    if (ratio <= kRejoinRatio || ratio >= kApartRatio) {
      a = model::Attribute::measured(ratio <= kRejoinRatio, "", method, confidence);
    } else {
      a = model::Attribute::unavailable(model::Source::Measured, "",
                                        "not established: the tail costs " + std::to_string(ratio) +
                                            " x as much at " + std::to_string(kDivergeMostPaths) +
                                            " paths as at one, neither about 1 nor about " +
                                            std::to_string(kDivergeMostPaths));
    }
    a.evidence = evidence;
    ctx.put_compute(model::keys::divergenceReconverges, std::move(a));
  }
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Compute, 60, Made::Once,
                       [](const Site&) { return std::make_unique<DivergenceProbe>(); });

}  // namespace gputopo::discovery
