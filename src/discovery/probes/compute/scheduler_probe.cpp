#include <algorithm>
#include <cmath>
#include <optional>
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

constexpr int kMaxSchedulers = 16;
constexpr std::uint32_t kMaxWarps = 32;
// A count fits when no warp count's time is off its model by more than this; it is decided when
// every other count misfits by this much more.
constexpr double kTolerance = 0.08;

double predicted(double floor, double issue, double pipe, int warps, int schedulers) {
  const double groups = std::ceil(static_cast<double>(warps) / schedulers);
  return std::max({floor, issue * groups, pipe * warps});
}

// How well `schedulers` explains cycles[w - 1], the cycles per step of w warps of one block (each
// thread 8 independent FFMA chains): t(w) = max(latency floor, issue x ceil(w / schedulers),
// pipe x w), the floor t(1) or none, issue and pipe chosen to fit best. The largest relative
// misfit of one warp count.
double scheduler_misfit(const std::vector<double>& cycles, int schedulers) {
  const int n = static_cast<int>(cycles.size());
  double pipe = cycles[0];
  for (int w = 1; w <= n; ++w) pipe = std::min(pipe, cycles[w - 1] / w);
  double best = 1e9;
  for (const double floor : {0.0, cycles[0]})
    for (int k = 1; k <= n; ++k) {
      const double issue = cycles[k - 1] / std::ceil(static_cast<double>(k) / schedulers);
      double worst = 0;
      for (int w = 1; w <= n; ++w)
        worst = std::max(
            worst, std::abs(predicted(floor, issue, pipe, w, schedulers) / cycles[w - 1] - 1));
      best = std::min(best, worst);
    }
  return best;
}

struct SchedulerFit {
  int schedulers = 0;
  double misfit = 0;
  int runner_up = 0;  // the best other count
  double runner_up_misfit = 0;
  std::vector<int> consistent;  // every count that fits within the tolerance
};

// The count of 1 to 16 that fits best, or nullopt for fewer than two warp counts.
std::optional<SchedulerFit> fit_schedulers(const std::vector<double>& cycles) {
  if (cycles.size() < 2 ||
      std::any_of(cycles.begin(), cycles.end(), [](double c) { return !(c > 0); }))
    return std::nullopt;
  const int most = std::min<int>(kMaxSchedulers, static_cast<int>(cycles.size()) - 1);
  std::vector<double> misfit(static_cast<std::size_t>(most) + 1, 1e9);
  SchedulerFit fit;
  fit.misfit = 1e9;
  for (int s = 1; s <= most; ++s) {
    misfit[static_cast<std::size_t>(s)] = scheduler_misfit(cycles, s);
    if (misfit[static_cast<std::size_t>(s)] < fit.misfit) {
      fit.schedulers = s;
      fit.misfit = misfit[static_cast<std::size_t>(s)];
    }
  }
  fit.runner_up_misfit = 1e9;
  for (int s = 1; s <= most; ++s) {
    const double m = misfit[static_cast<std::size_t>(s)];
    if (m <= kTolerance) fit.consistent.push_back(s);
    if (s != fit.schedulers && m < fit.runner_up_misfit) {
      fit.runner_up = s;
      fit.runner_up_misfit = m;
    }
  }
  return fit;
}

// Writes compute.warpSchedulers: the warp schedulers (SM sub-partitions) of an SM, from where the
// time of one block stops staying flat as its warps grow (Wong et al.'s issue experiment).
class SchedulerProbe final : public Probe {
 public:
  SchedulerProbe() : Probe("warpSchedulers", {}) { declare({}, {compute(keys::warpSchedulers)}); }

  void run(Context& ctx) override {
    const auto& info = ctx.info();
    const auto warp = static_cast<std::uint32_t>(std::max(info.warp_size(), 1));
    const std::uint32_t warps = std::clamp<std::uint32_t>(
        static_cast<std::uint32_t>(info.max_threads_per_block()) / warp, 1, kMaxWarps);
    std::vector<device::ComputeRequest> items;
    for (std::uint32_t w = 1; w <= warps; ++w)
      items.push_back(
          {device::ComputeOp::FFma32, kThroughputShortSteps, kThroughputIlp, w, 1, std::nullopt});
    std::string why;
    const auto result = run_compute_batch(
        ctx, two_length_batch(items, kPipelineRepeats, kThroughputShortSteps, kThroughputLongSteps),
        why);
    if (!result) return unavailable(ctx, why, nullptr);
    const device::ComputeBatchResult& r = *result;
    std::vector<double> cycles;
    double repeats_agree = 1;
    for (std::uint32_t w = 1; w <= warps; ++w) {
      const Slope slope = item_slope(r, w - 1, warps, kPipelineRepeats, kThroughputShortSteps,
                                     kThroughputLongSteps);
      cycles.push_back(slope.value);
      repeats_agree = std::min(repeats_agree, slope.confidence);
    }
    decide(ctx, cycles, repeats_agree);
  }

 private:
  static void decide(Context& ctx, const std::vector<double>& cycles, double repeats_agree) {
    model::Json evidence = {{"op", "ffma"},
                            {"ilp", kThroughputIlp},
                            {"cyclesPerStepByWarps", cycles},
                            {"model",
                             "cycles per step = max(latency floor, issue x ceil(warps / "
                             "schedulers), pipe x warps)"}};
    const auto fit = fit_schedulers(cycles);
    if (!fit) return unavailable(ctx, "no warp count took time", evidence);
    evidence["misfit"] = fit->misfit;
    evidence["runnerUp"] = {{"schedulers", fit->runner_up}, {"misfit", fit->runner_up_misfit}};
    evidence["consistentCounts"] = fit->consistent;
    if (fit->misfit > kTolerance)
      return unavailable(ctx,
                         "no scheduler count explains the times of 1 to " +
                             std::to_string(cycles.size()) + " warps (best misfit " +
                             std::to_string(fit->misfit) + ")",
                         evidence);
    if (fit->runner_up_misfit < fit->misfit + kTolerance) {
      std::string counts;
      for (const int s : fit->consistent)
        counts += (counts.empty() ? "" : ", ") + std::to_string(s);
      return unavailable(ctx,
                         "the times fit several scheduler counts alike (" + counts +
                             "): the pipe, not the issue, limits the warps past the first",
                         evidence);
    }
    const double decided =
        std::clamp((fit->runner_up_misfit - fit->misfit) / (2 * kTolerance), 0.0, 1.0);
    auto a = model::Attribute::measured(
        fit->schedulers, "",
        "one block of 1 to " + std::to_string(cycles.size()) +
            " warps, each thread 8 independent FFMA chains, cycles per step over two chain "
            "lengths; the scheduler count whose model fits the times best (Wong et al.)",
        std::min(repeats_agree, decided));
    a.interval =
        model::Interval{static_cast<double>(fit->schedulers), static_cast<double>(fit->schedulers)};
    a.evidence = std::move(evidence);
    ctx.put_compute(model::keys::warpSchedulers, std::move(a));
  }

  static void unavailable(Context& ctx, const std::string& why, model::Json evidence) {
    auto a = model::Attribute::unavailable(model::Source::Measured, "", why);
    if (!evidence.is_null()) a.evidence = std::move(evidence);
    ctx.put_compute(model::keys::warpSchedulers, std::move(a));
  }
};

}  // namespace

GPUTOPO_REGISTER_PROBE(Family::Compute, 30, Made::Once,
                       [](const Site&) { return std::make_unique<SchedulerProbe>(); });

}  // namespace gputopo::discovery
