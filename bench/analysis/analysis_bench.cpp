// Speed of the analysis on a full-size sweep: 132 points x 2048 per-load latencies (an L2 sweep of
// an H100-like GPU with near/far/DRAM levels and 1 % outliers). Target: under 10 ms on one core.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <random>

#include "analysis/changepoint.hpp"
#include "analysis/cluster.hpp"
#include "analysis/rise.hpp"
#include "analysis/summary.hpp"
#include "synthetic.hpp"

namespace {

using namespace gputopo::analysis;

const std::vector<SweepPoint>& l2_sweep() {
  static const std::vector<SweepPoint> points = [] {
    std::mt19937_64 rng(42);
    return synthetic::sweep(
        rng, synthetic::range(16, 0.5, 132),
        [](double x) {
          return std::vector<synthetic::Mix>{{x < 27 ? 300.0 : x < 52 ? 550.0 : 700.0, 1.0}};
        },
        2048, {.jitter = 0.04, .outliers = 0.01});
  }();
  return points;
}

void BM_SegmentSweep(benchmark::State& state) {
  const auto& points = l2_sweep();
  for (auto _ : state) benchmark::DoNotOptimize(segment(points));
  state.SetItemsProcessed(state.iterations() * 132 * 2048);
}
BENCHMARK(BM_SegmentSweep)->Unit(benchmark::kMillisecond);

void BM_MostLikelyChange(benchmark::State& state) {
  const auto& points = l2_sweep();
  for (auto _ : state) benchmark::DoNotOptimize(most_likely_change(points));
}
BENCHMARK(BM_MostLikelyChange)->Unit(benchmark::kMillisecond);

void BM_ReduceOnly(benchmark::State& state) {
  const auto& points = l2_sweep();
  for (auto _ : state) benchmark::DoNotOptimize(reduce(points, Reduction::LevelFractions));
}
BENCHMARK(BM_ReduceOnly)->Unit(benchmark::kMillisecond);

void BM_ClusterPooled(benchmark::State& state) {
  const auto& points = l2_sweep();
  std::vector<std::span<const double>> spans;
  for (const auto& p : points) spans.emplace_back(p.samples);
  for (auto _ : state) benchmark::DoNotOptimize(cluster_levels(std::span(spans)));
}
BENCHMARK(BM_ClusterPooled)->Unit(benchmark::kMillisecond);

void BM_SummarizePoint(benchmark::State& state) {
  const auto& s = l2_sweep()[60].samples;
  for (auto _ : state) benchmark::DoNotOptimize(summarize(s));
}
BENCHMARK(BM_SummarizePoint)->Unit(benchmark::kMicrosecond);

}  // namespace

// A size round's miss-fraction curve: 131 sizes, flat at 0.17, a ramp to 0.47 over a sixth of the
// sweep from two thirds on, binomial noise of 4 x 4,600 loads a point (an H200 L1 round).
void BM_SteepestRise131(benchmark::State& state) {
  std::mt19937_64 rng(7);
  std::vector<double> x, fraction, loads;
  for (int i = 0; i < 131; ++i) {
    const double t = i / 130.0;
    const double p = 0.17 + 0.3 * std::clamp((t - 0.66) / 0.17, 0.0, 1.0);
    std::binomial_distribution<int> draws(18400, p);
    x.push_back(32768 + 1760.0 * i);
    fraction.push_back(draws(rng) / 18400.0);
    loads.push_back(18400);
  }
  for (auto _ : state) benchmark::DoNotOptimize(steepest_rise(x, fraction, loads, 0.0));
}
BENCHMARK(BM_SteepestRise131)->Unit(benchmark::kMillisecond);

void BM_QuantilesOfRound(benchmark::State& state) {
  const auto& s = l2_sweep()[60].samples;
  const std::array<double, 3> qs = {0.1, 0.5, 0.9};
  for (auto _ : state) benchmark::DoNotOptimize(quantiles(s, qs));
}
BENCHMARK(BM_QuantilesOfRound)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
