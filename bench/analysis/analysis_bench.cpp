// Speed of the analysis on a full-size sweep: 132 points x 2048 per-load latencies (an L2 sweep of
// an H100-like GPU with near/far/DRAM levels and 1 % outliers). Target: under 10 ms on one core.
#include <benchmark/benchmark.h>

#include <random>

#include "analysis/changepoint.hpp"
#include "analysis/cluster.hpp"
#include "analysis/ks.hpp"
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

void BM_KsTwoSample2048(benchmark::State& state) {
  const auto& a = l2_sweep()[10].samples;
  const auto& b = l2_sweep()[11].samples;
  for (auto _ : state) benchmark::DoNotOptimize(ks_2samp(a, b));
}
BENCHMARK(BM_KsTwoSample2048)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
