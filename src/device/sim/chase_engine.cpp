#include "device/sim/chase_engine.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <vector>

#include "device/sim/l2_contention.hpp"

namespace gputopo::device::sim {
namespace {
// Arrays of one request start far apart, at the same alignment (as 2 MiB-aligned device arrays).
constexpr std::uint64_t kArrayBase = std::uint64_t{1} << 40;
}  // namespace

struct LevelTiming {
  double mean = 0;
  double jitter = 0;
};

struct ChaseEngine::Run {
  const ChaseRequest* request = nullptr;
  std::uint64_t base = 0;
  std::uint64_t elements = 0;
  std::uint64_t position = 0;
  std::vector<std::uint32_t> next;  // random pattern only
  std::size_t step = 0;             // sequence pattern: index of `position` in the sequence
  std::vector<Cache*> path;
  std::vector<Cache*> store_path;  // global stores pass the L1 space's caches, whatever the space
  bool translates = false;  // the space's loads past its private caches go through TLB levels
  int segment = 0;
  std::vector<double> slice_extra;  // what an L2 hit on each slice adds for this run's SM
  // Private levels in path order, L2 near, L2 far by the segment that held the line, the
  // memory-side cache (where there is one), DRAM.
  std::vector<LevelTiming> timing;
  Replay* replay = nullptr;  // where the timed loads' levels are recorded or replayed from
  bool replaying = false;
  std::size_t replayed = 0;  // timed loads replayed so far

  std::uint64_t successor(std::uint64_t i) {
    const auto& sequence = request->sequence;
    if (!sequence.empty()) {
      step = step + 1 == sequence.size() ? 0 : step + 1;
      return sequence[step];
    }
    if (!next.empty()) return next[i];
    return i + 1 == elements ? 0 : i + 1;
  }
  std::size_t index_of(Served served) const {
    switch (served.kind) {
      case Served::Private:
        return served.position;
      case Served::L2Near:
        return path.size();
      case Served::L2Far:
        return path.size() + 1 + served.position;
      case Served::Mall:
        return timing.size() - 2;
      case Served::Dram:
        break;
    }
    return timing.size() - 1;
  }
  const LevelTiming& timing_of(Served served) const { return timing[index_of(served)]; }
};

ChaseEngine::ChaseEngine(const SimConfig& config)
    : config_(&config),
      memory_(config),
      translation_(config.tlb),
      l2_fetch_bytes_(config.l2.geometry.fetch_bytes) {}

double ChaseEngine::sm_l2_offset(int sm) const {
  const auto tpc = static_cast<std::uint64_t>(sm / config_->layout.sms_per_tpc);
  const double u = static_cast<double>(mix64(0x7bc0u, tpc) >> 11) * 0x1.0p-53;
  return std::round(u * config_->l2.sm_latency_spread_cycles);
}

std::vector<double> ChaseEngine::slice_extras(int sm) const {
  const L2Spec& l2 = config_->l2;
  if (l2.slice_latency_cycles <= 0 || l2.slices_per_segment < 2) return {};
  const double at = (sm + 0.5) / config_->device.sm_count;
  std::vector<double> extra;
  for (int k = 0; k < l2.slices_per_segment; ++k)
    extra.push_back(
        std::round(l2.slice_latency_cycles * std::abs(at - (k + 0.5) / l2.slices_per_segment)));
  return extra;
}

ChaseEngine::Run ChaseEngine::start(const ChaseRequest& request, int sm, std::uint32_t warp,
                                    std::uint64_t base, std::uint64_t seed, int first_sm) {
  Run run;
  run.request = &request;
  run.base = base;
  run.elements = request.array_bytes / request.stride_bytes;
  if (request.pattern == Pattern::Random && run.elements > 1) {
    // Sattolo's algorithm: a uniformly random single cycle through all elements.
    std::vector<std::uint32_t> order(run.elements);
    std::iota(order.begin(), order.end(), 0u);
    Rng rng(mix64(seed, 0x9e77u));
    for (std::uint64_t i = run.elements - 1; i > 0; --i) std::swap(order[i], order[rng.below(i)]);
    run.next.resize(run.elements);
    for (std::uint64_t i = 0; i < run.elements; ++i)
      run.next[order[i]] = order[(i + 1) % run.elements];
  }
  const double extra = config_->space(request.space).extra_cycles;
  if (request.space == Space::Shared) return run;
  run.path = memory_.path(request.space, warp, first_sm < 0 ? sm : first_sm, sm);
  if (warmup_of(request) != Warmup::Load)
    run.store_path = memory_.path(Space::L1, warp, first_sm < 0 ? sm : first_sm, sm);
  run.translates = translation_.translates(request.space);
  run.segment = config_->l2.sm_segment[static_cast<std::size_t>(sm)];
  run.slice_extra = slice_extras(sm);
  for (const int index : config_->space(request.space).path) {
    const CacheSpec& c = config_->caches[static_cast<std::size_t>(index)];
    run.timing.push_back({c.latency_cycles + extra, c.jitter_cycles});
  }
  const double offset = sm_l2_offset(sm);
  const L2Spec& l2 = config_->l2;
  run.timing.push_back(
      {l2.near_latency_by_segment[static_cast<std::size_t>(run.segment)] + offset + extra,
       l2.jitter_cycles});
  for (const double far : l2.far_latency_by_segment)
    run.timing.push_back({far + offset + extra, l2.jitter_cycles});
  if (config_->mall)
    run.timing.push_back(
        {config_->mall->latency_cycles + offset + extra, config_->mall->jitter_cycles});
  run.timing.push_back(
      {config_->dram.latency_cycles + offset + extra, config_->dram.jitter_cycles});
  return run;
}

double ChaseEngine::warm(Run& run, std::uint64_t loads) {
  const std::uint64_t stride = run.request->stride_bytes;
  if (run.request->space == Space::Shared) {
    for (std::uint64_t i = 0; i < loads; ++i) run.position = run.successor(run.position);
    return static_cast<double>(loads) * config_->shared.latency_cycles;
  }
  Cache* const* path = run.path.data();
  const std::size_t levels = run.path.size();
  double busy = 0;
  for (std::uint64_t i = 0; i < loads; ++i) {
    const std::uint64_t address = run.base + run.position * stride;
    const Served served = memory_.load(path, levels, run.segment, address);
    busy += run.timing_of(served).mean;
    if (run.translates && served.kind != Served::Private)
      busy += translation_.translate(run.request->space, address);
    run.position = run.successor(run.position);
  }
  return busy;
}

void ChaseEngine::store_pass(Run& run, double& busy_cycles) {
  const std::uint64_t stride = run.request->stride_bytes;
  for (std::uint64_t k = 0; !run.replaying && k < run.elements; ++k)
    memory_.store(run.store_path.data(), run.store_path.size(), run.segment, run.base + k * stride);
  busy_cycles += static_cast<double>(run.elements) * run.timing.front().mean;
}

double ChaseEngine::served_cycles(Run& run, Rng& noise, double& busy_cycles) {
  const ChaseRequest& request = *run.request;
  const LevelTiming shared{config_->shared.latency_cycles, config_->shared.jitter_cycles};
  const std::uint64_t address = run.base + run.position * request.stride_bytes;
  double translation = 0;
  const LevelTiming* level = &shared;
  if (run.replaying) {
    level = &run.timing[run.replay->levels[run.replayed]];
    if (run.translates) translation = run.replay->translations[run.replayed];
    ++run.replayed;
  } else if (request.space != Space::Shared) {
    const Served served = memory_.load(run.path.data(), run.path.size(), run.segment, address);
    level = &run.timing_of(served);
    if (run.translates && served.kind != Served::Private)
      translation = translation_.translate(request.space, address);
    if (run.replay) {
      run.replay->levels.push_back(static_cast<std::uint8_t>(run.index_of(served)));
      if (run.translates) run.replay->translations.push_back(translation);
    }
  }
  const LevelTiming& t = *level;
  double cycles = t.mean + translation;
  const auto index = static_cast<std::size_t>(level - run.timing.data());
  if (!run.slice_extra.empty() && index >= run.path.size() &&
      index <= run.path.size() + config_->l2.far_latency_by_segment.size()) {
    const double extra = run.slice_extra[static_cast<std::size_t>(slice_of(config_->l2, address))];
    cycles += extra;
    busy_cycles += extra;
  }
  if (t.jitter > 0) cycles += t.jitter * noise.normal();
  const NoiseSpec& outliers = config_->noise;
  if (outliers.outlier_rate > 0 && noise.uniform() < outliers.outlier_rate)
    cycles += outliers.outlier_min_cycles +
              noise.uniform() * (outliers.outlier_max_cycles - outliers.outlier_min_cycles);
  busy_cycles += t.mean + translation;
  run.position = run.successor(run.position);
  return std::max(1.0, cycles);
}

void ChaseEngine::timed(Run& run, Rng& noise, ChaseResult& result, double& busy_cycles) {
  const ChaseRequest& request = *run.request;
  if (chain_timed(request)) {
    // Segment totals of the loads' own latencies: no clock read inside a segment.
    const std::uint32_t loads = segment_loads(request);
    result.segment_loads = loads;
    for (std::uint32_t s = 0; s < request.recorded_loads / loads; ++s) {
      double total = 0;
      for (std::uint32_t i = 0; i < loads; ++i) total += served_cycles(run, noise, busy_cycles);
      result.cycles.push_back(static_cast<std::uint32_t>(std::min(std::round(total), 4e9)));
    }
    return;
  }
  result.cycles.reserve(request.recorded_loads);
  if (request.record_indices) result.indices.reserve(request.recorded_loads);
  const double timing = std::round(config_->overhead_cycles) - std::round(config_->overlap_cycles);
  for (std::uint32_t i = 0; i < request.recorded_loads; ++i) {
    const double cycles =
        std::max(1.0, std::round(served_cycles(run, noise, busy_cycles)) + timing);
    result.cycles.push_back(static_cast<std::uint32_t>(std::min(cycles, 4e9)));
    if (request.record_indices) result.indices.push_back(run.position);
  }
}

ChaseEngine::Replay* ChaseEngine::replay_of(const ChaseRequest& request, int sm,
                                            std::optional<int> carveout_percent, bool& recorded) {
  // Small chases cost less to simulate than to look up and keep.
  constexpr std::uint64_t kLeastLoads = std::uint64_t{1} << 16;
  const std::uint64_t elements = request.array_bytes / request.stride_bytes;
  if (request.pattern != Pattern::Strided || request.space == Space::Shared ||
      std::uint64_t{request.warmup_passes} * elements < kLeastLoads)
    return nullptr;
  // Everything that decides where each load is served and what it costs, but the seed: the
  // request, the caches' configuration and the SM's L2 segment and latency offset.
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  const std::vector<std::uint64_t> key{
      static_cast<std::uint64_t>(request.space),
      request.array_bytes,
      request.stride_bytes,
      request.warmup_passes,
      request.recorded_loads,
      request.record_indices,
      request.region.value_or(0),
      static_cast<std::uint64_t>(request.timing.value_or(Timing::PerLoad)),
      segment_loads(request),
      static_cast<std::uint64_t>(warmup_of(request)),
      static_cast<std::uint64_t>(carveout_percent.value_or(-1)),
      l2_fetch_bytes_,
      static_cast<std::uint64_t>(config_->l2.sm_segment[static_cast<std::size_t>(sm)]),
      bits(sm_l2_offset(sm))};
  const auto [at, fresh] = replays_.try_emplace(key);
  recorded = !fresh;
  return &at->second;
}

ChaseResult ChaseEngine::chase(const ChaseRequest& request, int sm,
                               std::optional<int> carveout_percent, std::uint64_t seed,
                               double& busy_cycles) {
  memory_.configure(carveout_percent, request.space == Space::Shared ? request.array_bytes : 0);
  memory_.reset();
  translation_.reset();
  Run run = start(request, sm, 0, kArrayBase + region_offset(request), seed);
  bool recorded = false;
  run.replay = replay_of(request, sm, carveout_percent, recorded);
  run.replaying = run.replay != nullptr && recorded;
  const Warmup warmup = warmup_of(request);
  if (warmup != Warmup::Store) {
    const std::uint64_t loads = std::uint64_t{request.warmup_passes} * run.elements;
    if (run.replaying) {
      busy_cycles += run.replay->warm_busy;
      run.position = (run.position + loads) % run.elements;
    } else {
      const double busy = warm(run, loads);
      busy_cycles += busy;
      if (run.replay) run.replay->warm_busy = busy;
    }
  }
  if (warmup != Warmup::Load) store_pass(run, busy_cycles);
  ChaseResult result;
  result.sm = sm;
  result.overhead_cycles = chain_timed(request) ? 0 : config_->overhead_cycles;
  Rng noise(mix64(seed, 0x40153u));
  timed(run, noise, result, busy_cycles);
  return result;
}

ChaseResult ChaseEngine::interfere(const InterferenceRequest& request, int sm,
                                   std::optional<int> carveout_percent, std::uint64_t seed,
                                   double& busy_cycles) {
  std::uint64_t shared_bytes = 0;
  for (const ChaseRequest* r : {&request.a, &request.b})
    if (r->space == Space::Shared) shared_bytes += r->array_bytes;
  memory_.configure(carveout_percent, shared_bytes);
  memory_.reset();
  translation_.reset();
  const bool two = request.placement == InterferenceRequest::Placement::TwoThreads;
  const bool two_sms = request.placement == InterferenceRequest::Placement::TwoSms;
  const auto warp_size = static_cast<std::uint32_t>(config_->device.warp_size);
  const std::uint32_t warp_a = two ? request.thread_a / warp_size : 0;
  const std::uint32_t warp_b = two ? request.thread_b / warp_size : 0;
  const int sm_b = two_sms ? request.sm_b.value_or(sm) : sm;
  Run a = start(request.a, sm, warp_a, kArrayBase + region_offset(request.a), mix64(seed, 1));
  Run b =
      start(request.b, sm_b, warp_b, 2 * kArrayBase + region_offset(request.b), mix64(seed, 2), sm);
  busy_cycles += warm(a, std::uint64_t{request.a.warmup_passes} * a.elements);
  busy_cycles += warm(b, std::uint64_t{request.b.warmup_passes} * b.elements);
  ChaseResult result;
  result.sm = sm;
  result.overhead_cycles = config_->overhead_cycles;
  Rng noise(mix64(seed, 0x40153u));
  timed(a, noise, result, busy_cycles);
  return result;
}

}  // namespace gputopo::device::sim
