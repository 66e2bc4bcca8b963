// Speed of the simulated GPU. A full discovery against h100-sxm chases L2 arrays of up to twice
// the 50 MiB L2, i.e. millions of simulated loads per point; this measures loads per second of
// the cache model alone and of whole chases through the device interface.
#include <benchmark/benchmark.h>

#include "device/sim/cache.hpp"
#include "device/sim/sim_device.hpp"

namespace {

using namespace gputopo::device;
constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = 1024 * KiB;

// One set-associative cache, cyclic strided access over `range(0)` KiB: hits when it fits.
void BM_CacheAccess(benchmark::State& state) {
  const auto policy = static_cast<sim::Replacement>(state.range(1));
  sim::CacheGeometry g{25 * MiB, 128, 32, 32, 25, policy, true};
  if (policy == sim::Replacement::TreePlru) {
    g.ways = 16;
    g.size_bytes = 16 * MiB;
  }
  sim::Cache cache(g, 1);
  const std::uint64_t bytes = static_cast<std::uint64_t>(state.range(0)) * KiB;
  std::uint64_t address = 0;
  std::uint64_t hits = 0;
  for (auto _ : state) {
    for (int i = 0; i < 4096; ++i) {
      hits += cache.access(address) ? 1 : 0;
      address += 128;
      if (address >= bytes) address = 0;
    }
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations() * 4096);
  state.SetLabel(std::string(sim::to_string(policy)));
}
BENCHMARK(BM_CacheAccess)
    ->ArgsProduct({{8 * 1024, 64 * 1024}, {0, 1, 2, 3}})
    ->ArgNames({"KiB", "policy"});

// One L2 chase through the device: 128 B stride, one warm-up pass, 2048 timed loads. A fresh
// device each time: a device replays a strided chase it has run before (docs/sim.md, "Speed").
void BM_L2Chase(benchmark::State& state) {
  ChaseRequest r;
  r.space = Space::L2;
  r.array_bytes = static_cast<std::uint64_t>(state.range(0)) * MiB;
  r.stride_bytes = 128;
  r.warmup_passes = 1;
  r.recorded_loads = 2048;
  ChaseBatch batch;
  batch.requests.push_back(r);
  for (auto _ : state) {
    state.PauseTiming();
    auto device = sim::open("h100-sxm");
    state.ResumeTiming();
    benchmark::DoNotOptimize(device->chase(batch));
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(r.array_bytes / r.stride_bytes + 2048));
}
BENCHMARK(BM_L2Chase)->Arg(20)->Arg(50)->Arg(100)->ArgName("MiB")->Unit(benchmark::kMillisecond);

// An L1 size sweep as one batch: 64 sizes from 8 to 512 KiB, one per SM.
void BM_L1SweepBatch(benchmark::State& state) {
  auto device = sim::open("h100-sxm");
  ChaseBatch batch;
  batch.carveout_percent = 0;
  std::int64_t loads = 0;
  for (int i = 1; i <= 64; ++i) {
    ChaseRequest r;
    r.space = Space::L1;
    r.array_bytes = static_cast<std::uint64_t>(i) * 8 * KiB;
    r.stride_bytes = 128;
    r.recorded_loads = 1024;
    batch.requests.push_back(r);
    loads += static_cast<std::int64_t>(r.array_bytes / 128 + 1024);
  }
  for (auto _ : state) benchmark::DoNotOptimize(device->chase(batch));
  state.SetItemsProcessed(state.iterations() * loads);
}
BENCHMARK(BM_L1SweepBatch)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
