#include "device/cuda/chase_runner.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "device/cuda/chase_arrays.hpp"
#include "device/cuda/check.hpp"
#include "device/cuda/l2_fetch_limit.hpp"
#include "device/cuda/plan/batch_plan.hpp"
#include "device/cuda/plan/run_stats.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr int kMaxAttempts = 8;           // launches per unit before placement gives up
constexpr double kNsPerLoadBound = 1000;  // generous: a DRAM miss with a TLB miss
constexpr std::uint64_t kChaseDeadlineFloorNs = 2'000'000'000;
constexpr std::uint64_t kKeepArrayBytes = std::uint64_t{1} << 30;
// Launches queued on the stream before the host waits (a one-SM size sweep: one size each).
constexpr std::size_t kQueuedLaunches = 256;
constexpr double kFlushSeconds = 10;  // an L2 flush's share of a queue's wait
// An idle GPU may run its SMs slowly: the first chase spins the SMs in slices until NVML reads
// the highest SM clock, at most kRampSlices of them (without NVML, all).
constexpr std::uint64_t kRampSliceNs = 2'000'000;
constexpr int kRampSlices = 25;

ChaseVariant variant_of(Space s) { return static_cast<ChaseVariant>(static_cast<int>(s)); }

std::string describe(Space s) { return std::string(to_string(s)); }

// The job's expected time, bounded generously; the device deadline is a multiple of it.
double bound_ns(const ChaseUnit& u, const ChaseLayout& la, const std::optional<ChaseLayout>& lb) {
  double loads = u.a.recorded_loads;
  const double warm_a = static_cast<double>(u.a.warmup_passes) * static_cast<double>(la.elements);
  // Every thread of the block warms in Chase and TwoSmsA mode: far faster than one thread.
  const bool parallel = u.mode == JobMode::Chase || u.mode == JobMode::TwoSmsA;
  loads += parallel ? warm_a / 32 : warm_a;
  if (lb) {
    const double warm_b =
        static_cast<double>(u.b->warmup_passes) * static_cast<double>(lb->elements);
    loads += parallel ? warm_b / 32 : warm_b;
  }
  return loads * kNsPerLoadBound;
}

// Cycle counts a request returns: one per load, or one per chain segment.
std::uint32_t recorded_values(const ChaseRequest& r) {
  return chain_timed(r) ? r.recorded_loads / segment_loads(r) : r.recorded_loads;
}

template <class T>
std::uint64_t device_address(T* p) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
}

// The kernel's jobs, one a unit, and how it finds them: by SM, or from the list of unplaced ones.
struct JobTable {
  std::vector<ChaseJob> jobs;
  std::vector<std::int32_t> sm_to_job;
  std::vector<std::int32_t> unplaced;
  std::uint32_t dynamic_shared = 0;  // the most any unit needs
  double longest_ns = 0;             // the longest bound on a unit's run
};
JobTable make_jobs(const std::vector<const ChaseUnit*>& units, const LaunchArrays& arrays,
                   const ChaseLimits& limits, std::uint8_t* records,
                   const std::vector<std::uint64_t>& record_offsets) {
  const std::size_t n = units.size();
  JobTable t;
  t.jobs.resize(n);
  t.sm_to_job.assign(kMaxSmid, -1);
  std::vector<ChaseJob> partner_jobs;
  std::vector<int> partner_sms;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& u = *units[i];
    auto& job = t.jobs[i];
    job.a = arrays.a(i);
    job.b = arrays.b(i);
    t.dynamic_shared = std::max(t.dynamic_shared, arrays.shared_bytes(i));
    job.mode = static_cast<std::uint32_t>(u.mode);
    job.chain = chain_timed(u.a) ? 1 : 0;
    job.recorded_loads = u.a.recorded_loads;
    job.segment_loads = chain_timed(u.a) ? segment_loads(u.a) : 0;
    job.thread_a = u.thread_a;
    job.thread_b = u.thread_b;
    job.cycles_out = device_address(records + record_offsets[2 * i]);
    job.indices_out = u.a.record_indices ? device_address(records + record_offsets[2 * i + 1]) : 0;
    if (u.sm >= 0)
      t.sm_to_job[static_cast<std::size_t>(u.sm)] = static_cast<std::int32_t>(i);
    else
      t.unplaced.push_back(static_cast<std::int32_t>(i));
    if (u.mode == JobMode::TwoSmsA) {
      // B's block: a job of its own on B's SM, after the units' jobs.
      ChaseJob partner;
      partner.a = arrays.b(i);
      partner.mode = static_cast<std::uint32_t>(JobMode::TwoSmsB);
      partner.partner = static_cast<std::uint32_t>(i);
      partner_jobs.push_back(partner);
      partner_sms.push_back(u.sm_b);
    }
    const auto la = make_layout(u.a, limits);
    const auto lb = u.b ? std::optional(make_layout(*u.b, limits)) : std::nullopt;
    t.longest_ns = std::max(t.longest_ns, bound_ns(u, la, lb));
  }
  for (std::size_t k = 0; k < partner_jobs.size(); ++k) {
    t.sm_to_job[static_cast<std::size_t>(partner_sms[k])] =
        static_cast<std::int32_t>(t.jobs.size());
    t.jobs.push_back(partner_jobs[k]);
  }

  return t;
}

// Indices as the kernel recorded them, 8 or 4 bytes each (`wide`), into `out` (sized already).
void unpack_indices(const std::uint8_t* src, bool wide, std::vector<std::uint64_t>& out) {
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (wide) {
      std::uint64_t v = 0;
      std::memcpy(&v, src + k * 8, 8);
      out[k] = v;
    } else {
      std::uint32_t v = 0;
      std::memcpy(&v, src + k * 4, 4);
      out[k] = v;
    }
  }
}

}  // namespace

ChaseRunner::ChaseRunner(const DeviceInfo& info, cudaStream_t stream, const RunClock& clock)
    : info_(info), stream_(stream), clock_(clock), trace_(std::getenv("GPUTOPO_CHASE_TRACE")) {
  std::size_t static_shared = 0;
  check(chase_static_shared_bytes(ChaseVariant::Shared, false, &static_shared),
        "cudaFuncGetAttributes (chase kernel)");
  const auto desc = cudaCreateChannelDesc<unsigned int>();
  std::size_t texels = 0;
  check(cudaDeviceGetTexture1DLinearMaxWidth(&texels, &desc, info.index),
        "cudaDeviceGetTexture1DLinearMaxWidth");
  limits_.constant_bytes = std::min<std::uint64_t>(constant_bank_bytes(), info.constant_bytes());
  limits_.shared_bytes = info.shared_per_block_optin_bytes() > static_shared
                             ? info.shared_per_block_optin_bytes() - static_shared
                             : 0;
  limits_.texture_max_elements = texels;
  limits_.max_threads_per_block = kChaseThreads;
  limits_.sm_count = info.sm_count();
}

void ChaseRunner::validate(const ChaseUnit& u) const {
  const auto la = make_layout(u.a, limits_);
  if (!u.b) return;
  const auto lb = make_layout(*u.b, limits_);
  auto bad = [](const std::string& why) {
    throw Error(Error::Kind::BadRequest, "interference request: " + why);
  };
  if (chain_timed(u.a) || chain_timed(*u.b)) bad("interference is timed per load, not as a chain");
  if (warmup_of(u.a) != Warmup::Load || warmup_of(*u.b) != Warmup::Load)
    bad("interference warms up with loads only");
  if (la.index_bytes != 4 || lb.index_bytes != 4)
    bad("both arrays must be at most 16 GiB (32-bit indices)");
  if (u.thread_a >= kChaseThreads || u.thread_b >= kChaseThreads)
    bad("threads must be below " + std::to_string(kChaseThreads));
  if (u.mode == JobMode::TwoThreads && u.thread_a == u.thread_b)
    bad("two-thread placement needs two different threads");
  if (u.mode == JobMode::TwoSmsA) {
    if (u.sm < 0 || u.sm_b < 0 || u.sm == u.sm_b || u.sm >= limits_.sm_count ||
        u.sm_b >= limits_.sm_count)
      bad("two-SM placement needs sm and sm_b, two different SMs of the GPU");
    if (u.a.space != u.b->space)
      bad("two-SM placement needs A and B in one space (one kernel runs both blocks)");
  }
  std::uint64_t shared = 0;
  if (u.a.space == Space::Shared) shared += u.a.array_bytes;
  if (u.b->space == Space::Shared) shared += u.b->array_bytes;
  if (shared > limits_.shared_bytes) bad("A and B together exceed the block's shared memory");
  std::uint64_t constant = 0;
  if (u.a.space == Space::Constant) constant += align_up(u.a.array_bytes, kConstantAlignment);
  if (u.b->space == Space::Constant) constant += align_up(u.b->array_bytes, kConstantAlignment);
  if (constant > limits_.constant_bytes) bad("A and B together exceed the constant bank");
}

void ChaseRunner::ramp_clocks() {
  const double top = info_.sm_clock_max_mhz();
  for (int slice = 0; slice < kRampSlices; ++slice) {
    if (const auto mhz = clock_.sm_mhz(); mhz && top > 0 && *mhz >= top) return;
    check(launch_spin(kRampSliceNs, static_cast<std::uint32_t>(info_.sm_count()) * 4, stream_),
          "clock warm-up kernel");
    wait_for(stream_, 10, "clock warm-up kernel");
  }
}

void ChaseRunner::flush_l2() {
  if (info_.l2_bytes() == 0) return;
  const std::uint64_t bytes = 2 * info_.l2_bytes();
  auto* buffer = flush_.reserve(bytes + 64);
  auto* sink = reinterpret_cast<std::uint32_t*>(buffer + bytes);
  StreamArgs args;
  args.src = buffer;
  args.vectors = bytes / 16;
  args.sink = sink;
  check(launch_stream(StreamKernel::Read, {}, args,
                      static_cast<std::uint32_t>(info_.sm_count()) * 4, 256, stream_),
        "L2 flush kernel");
}

double ChaseRunner::overhead_cycles() {
  if (overhead_) return *overhead_;
  ramp_clocks();
  ChaseUnit u;
  u.a.space = Space::L1;
  u.a.array_bytes = 4;
  u.a.stride_bytes = 4;
  u.a.warmup_passes = 0;
  u.a.recorded_loads = 4096;
  std::vector<ChaseResult> results(1);
  const auto attempt = launch({&u}, std::nullopt, ChaseVariant::NoLoad, results);
  if (!attempt.outcomes[0].ran)
    throw Error(Error::Kind::Measurement, "the timing-overhead kernel did not run");
  overhead_ = median_cycles(results[0].cycles);
  return *overhead_;
}

ChaseBatchResult ChaseRunner::run(const std::vector<ChaseUnit>& units, std::optional<int> carveout,
                                  std::optional<std::uint32_t> l2_fetch_limit) {
  if (carveout && (*carveout < 0 || *carveout > 100))
    throw Error(Error::Kind::BadRequest,
                "carve-out " + std::to_string(*carveout) + " % is outside 0..100");
  if (l2_fetch_limit && *l2_fetch_limit > kMaxL2FetchLimitBytes)
    throw Error(Error::Kind::BadRequest, "L2 fetch limit " + std::to_string(*l2_fetch_limit) +
                                             " B is outside 0.." +
                                             std::to_string(kMaxL2FetchLimitBytes));
  for (const auto& u : units) validate(u);
  overhead_cycles();
  const ScopedL2FetchLimit l2_limit(l2_fetch_limit);

  const auto plan_units = plan_units_of(units);
  PlanLimits plan_limits;
  plan_limits.sm_count = info_.sm_count();
  plan_limits.concurrent_bytes = std::max<std::uint64_t>(info_.l2_bytes() / 2, kArrayAlignment);
  plan_limits.constant_bank_bytes = limits_.constant_bytes;

  ChaseBatchResult out;
  out.results.resize(units.size());
  out.conditions = clock_.begin();
  out.conditions.carveout_percent = carveout;
  out.conditions.l2_fetch_limit_bytes = l2_limit.applied();
  const auto launches = plan_launches(plan_units, plan_limits);
  if (const auto table = LaunchArrays::successor_bytes(units, limits_); table > 0)
    successors_.reserve(table);
  warm_ns_ = timed_ns_ = 0;
  traced_jobs_ = 0;
  // Up to kQueuedLaunches launches go on the stream one after another (each after an L2 flush
  // where a shared level is involved), read back together.
  for (std::size_t first = 0; first < launches.size(); first += kQueuedLaunches) {
    const std::size_t end = std::min(launches.size(), first + kQueuedLaunches);
    run_launches(units, plan_units,
                 {launches.begin() + static_cast<std::ptrdiff_t>(first),
                  launches.begin() + static_cast<std::ptrdiff_t>(end)},
                 carveout, out);
  }
  clock_.end(out.conditions);
  if (trace_)
    std::fprintf(stderr,
                 "gputopo: chase %zu units in %zu launches: %zu jobs, %.3f ms warming, %.3f ms "
                 "timing\n",
                 units.size(), launches.size(), traced_jobs_, warm_ns_ / 1e6, timed_ns_ / 1e6);
  return out;
}

void ChaseRunner::release_large_arrays() {
  if (arrays_.capacity() > kKeepArrayBytes) arrays_.release();
  if (successors_.capacity() > kKeepArrayBytes) successors_.release();
}

std::vector<PlanUnit> ChaseRunner::plan_units_of(const std::vector<ChaseUnit>& units) const {
  std::vector<PlanUnit> plan_units;
  for (const auto& u : units) {
    PlanUnit p;
    const bool wide = make_layout(u.a, limits_).index_bytes == 8;
    p.group = static_cast<int>(variant_of(u.a.space)) * 2 + (wide ? 1 : 0);
    // A two-SM pair takes two SMs: it runs alone, as units outside the SMs' caches do.
    p.sm_private =
        sm_private(u.a.space) && (!u.b || sm_private(u.b->space)) && u.mode != JobMode::TwoSmsA;
    p.sm = u.sm;
    for (const ChaseRequest* r : {&u.a, u.b ? &*u.b : nullptr}) {
      if (r == nullptr) continue;
      if (r->space == Space::Constant)
        p.constants.push_back(constant_array(*r));
      else
        p.global_bytes += r->array_bytes;
    }
    plan_units.push_back(std::move(p));
  }
  return plan_units;
}

void ChaseRunner::run_launches(const std::vector<ChaseUnit>& units,
                               const std::vector<PlanUnit>& plan_units,
                               std::vector<std::vector<std::size_t>> pending,
                               std::optional<int> carveout, ChaseBatchResult& out) {
  for (int attempt = 0; !pending.empty(); ++attempt) {
    if (attempt == kMaxAttempts)
      throw Error(Error::Kind::Measurement, "could not run " + std::to_string(pending.size()) +
                                                " chase launch(es) with every job on its own SM "
                                                "after " +
                                                std::to_string(kMaxAttempts) + " launches");
    std::vector<std::vector<const ChaseUnit*>> members(pending.size());
    std::vector<bool> flush;
    for (std::size_t l = 0; l < pending.size(); ++l) {
      for (const auto i : pending[l]) members[l].push_back(&units[i]);
      flush.push_back(!plan_units[pending[l].front()].sm_private);
    }
    std::vector<std::vector<ChaseResult>> results(pending.size());
    const auto done = launch_queue(members, carveout, std::nullopt, results, flush);
    std::vector<std::vector<std::size_t>> next;
    for (std::size_t l = 0; l < pending.size(); ++l) {
      const auto verdict = judge_launch(done[l].outcomes);
      if (!verdict.timed_out.empty())
        throw Error(Error::Kind::Measurement,
                    "a " + describe(units[pending[l][verdict.timed_out.front()]].a.space) +
                        " chase ran past its deadline and was stopped; the GPU may be busy with "
                        "other work");
      for (const auto k : verdict.accepted) {
        if (!chain_timed(units[pending[l][k]].a)) results[l][k].overhead_cycles = *overhead_;
        out.results[pending[l][k]] = std::move(results[l][k]);
      }
      out.conditions.elapsed_ns += done[l].span_ns;
      out.conditions.elapsed_cycles += done[l].span_cycles;
      out.conditions.reruns += static_cast<std::uint32_t>(verdict.rerun.size());
      if (verdict.rerun.empty()) continue;
      next.emplace_back();
      for (const auto k : verdict.rerun) next.back().push_back(pending[l][k]);
    }
    pending = std::move(next);
  }
}

ChaseRunner::Attempt ChaseRunner::launch(const std::vector<const ChaseUnit*>& units,
                                         std::optional<int> carveout,
                                         std::optional<ChaseVariant> variant_override,
                                         std::vector<ChaseResult>& results) {
  std::vector<std::vector<ChaseResult>> all(1);
  auto attempts = launch_queue({units}, carveout, variant_override, all, {false});
  results = std::move(all.front());
  return std::move(attempts.front());
}

std::vector<ChaseRunner::Attempt> ChaseRunner::launch_queue(
    const std::vector<std::vector<const ChaseUnit*>>& launches, std::optional<int> carveout,
    std::optional<ChaseVariant> variant, std::vector<std::vector<ChaseResult>>& results,
    const std::vector<bool>& flush) {
  // Device memory for every launch before the first: arrays for the largest (every launch builds
  // its own at the same base, after the one before is done), jobs and records of each apart.
  std::uint64_t array_bytes = 0;
  std::size_t unplaced = 0;
  std::vector<std::uint64_t> job_offsets, record_offsets;
  std::uint64_t job_bytes = 0, record_bytes = 0;
  for (const auto& units : launches) {
    array_bytes = std::max(array_bytes, LaunchArrays::device_bytes(units));
    std::size_t jobs = units.size();
    for (const auto* u : units) {
      if (u->mode == JobMode::TwoSmsA) ++jobs;
      if (u->sm < 0) ++unplaced;
    }
    job_offsets.push_back(job_bytes);
    job_bytes += align_up(jobs * sizeof(ChaseJob), 256);
    record_offsets.push_back(record_bytes);
    record_bytes += record_placement(units).total;
  }
  arrays_.reserve(array_bytes);
  control_.reserve(control_placement(unplaced).total);
  std::uint8_t* jobs = jobs_.reserve(job_bytes);
  std::uint8_t* records = records_.reserve(record_bytes);

  std::vector<Queued> queued;
  double wait_s = 0;
  try {
    for (std::size_t l = 0; l < launches.size(); ++l) {
      if (flush[l]) {
        flush_l2();
        wait_s += kFlushSeconds;
      }
      queued.push_back(enqueue(launches[l], carveout, variant,
                               {jobs + job_offsets[l], records + record_offsets[l]},
                               launches.size() == 1));
      wait_s += queued.back().wait_s;
    }
  } catch (...) {
    // The launches already queued finish before their arrays and texture objects go.
    cudaStreamSynchronize(stream_);
    throw;
  }
  wait_for(stream_, wait_s, queued.front().what);

  std::vector<std::uint8_t> host_jobs(job_bytes);
  std::vector<std::uint8_t> host_records(record_bytes);
  check(cudaMemcpyAsync(host_jobs.data(), jobs, job_bytes, cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (chase job results)");
  check(
      cudaMemcpyAsync(host_records.data(), records, record_bytes, cudaMemcpyDeviceToHost, stream_),
      "cudaMemcpyAsync (chase records)");
  wait_for(stream_, kCopyBackSeconds, "copying chase records");

  std::vector<Attempt> attempts;
  for (std::size_t l = 0; l < launches.size(); ++l) {
    auto& q = queued[l];
    std::memcpy(q.jobs.data(), host_jobs.data() + job_offsets[l], q.jobs.size() * sizeof(ChaseJob));
    results[l].resize(launches[l].size());
    attempts.push_back(collect(launches[l], std::move(q.jobs),
                               host_records.data() + record_offsets[l], q.records.offsets, q.wide,
                               results[l]));
  }
  return attempts;
}

Placement ChaseRunner::record_placement(const std::vector<const ChaseUnit*>& units) const {
  std::vector<std::uint64_t> sizes;
  for (const auto* u : units) {
    const auto index_bytes = make_layout(u->a, limits_).index_bytes;
    sizes.push_back(std::uint64_t{recorded_values(u->a)} * 4);
    sizes.push_back(u->a.record_indices ? std::uint64_t{u->a.recorded_loads} * index_bytes : 0);
  }
  return place(sizes, 256);
}

// Control block: sm_to_job | unplaced | claims | counter | sink.
Placement ChaseRunner::control_placement(std::size_t unplaced) {
  return place(
      {kMaxSmid * sizeof(std::int32_t), std::max<std::size_t>(unplaced, 1) * sizeof(std::int32_t),
       kMaxSmid * sizeof(std::uint32_t) + sizeof(std::uint32_t),
       kChaseThreads * sizeof(std::uint32_t)},
      256);
}

ChaseRunner::Queued ChaseRunner::enqueue(const std::vector<const ChaseUnit*>& units,
                                         std::optional<int> carveout,
                                         std::optional<ChaseVariant> variant_override, Slots slots,
                                         bool wait_for_fills) {
  Queued q;
  q.wide = make_layout(units.front()->a, limits_).index_bytes == 8;
  const ChaseVariant variant = variant_override.value_or(variant_of(units.front()->a.space));
  q.arrays =
      std::make_unique<LaunchArrays>(units, limits_, arrays_, successors_, stream_, wait_for_fills);
  q.records = record_placement(units);
  JobTable table = make_jobs(units, *q.arrays, limits_, slots.records, q.records.offsets);
  const auto& sm_to_job = table.sm_to_job;
  const auto& unplaced = table.unplaced;

  const auto control_places = control_placement(unplaced.size());
  std::uint8_t* control = control_.reserve(control_places.total);
  ChaseLaunchArgs args;
  args.jobs = reinterpret_cast<ChaseJob*>(slots.jobs);
  args.sm_to_job = reinterpret_cast<const std::int32_t*>(control + control_places.offsets[0]);
  args.unplaced = reinterpret_cast<const std::int32_t*>(control + control_places.offsets[1]);
  args.unplaced_count = static_cast<std::uint32_t>(unplaced.size());
  args.claims = reinterpret_cast<std::uint32_t*>(control + control_places.offsets[2]);
  args.next_unplaced = args.claims + kMaxSmid;
  args.sink = reinterpret_cast<std::uint32_t*>(control + control_places.offsets[3]);
  const double deadline_ns = static_cast<double>(kChaseDeadlineFloorNs) + 4 * table.longest_ns;
  args.deadline_ns = static_cast<std::uint64_t>(deadline_ns);
  // From pageable memory, each copy is staged before the call returns.
  check(cudaMemcpyAsync(args.jobs, table.jobs.data(), table.jobs.size() * sizeof(ChaseJob),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (chase jobs)");
  check(cudaMemcpyAsync(control + control_places.offsets[0], sm_to_job.data(),
                        kMaxSmid * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (SM table)");
  if (!unplaced.empty())
    check(cudaMemcpyAsync(control + control_places.offsets[1], unplaced.data(),
                          unplaced.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (job list)");
  check(cudaMemsetAsync(args.claims, 0, (kMaxSmid + 1) * sizeof(std::uint32_t), stream_),
        "cudaMemsetAsync (SM claims)");

  ChaseKernelConfig config;
  config.carveout_percent = carveout.value_or(-1);
  config.dynamic_shared_bytes = table.dynamic_shared;
  q.what = "chase kernel (" + describe(units.front()->a.space) + ")";
  // Twice as many blocks as SMs, so that every SM gets a block to claim it.
  check(launch_chase(variant, q.wide, args, 2 * static_cast<std::uint32_t>(info_.sm_count()),
                     config, stream_),
        q.what + " launch");
  q.wait_s = 2 * deadline_ns / 1e9 + 10;
  q.jobs = std::move(table.jobs);
  q.sm_to_job = std::move(table.sm_to_job);
  q.unplaced = std::move(table.unplaced);
  return q;
}

ChaseRunner::Attempt ChaseRunner::collect(const std::vector<const ChaseUnit*>& units,
                                          std::vector<ChaseJob> jobs,
                                          const std::uint8_t* host_records,
                                          const std::vector<std::uint64_t>& record_offsets,
                                          bool wide, std::vector<ChaseResult>& results) {
  const std::size_t n = units.size();
  Attempt attempt;
  std::uint64_t first_ns = ~std::uint64_t{0};
  std::uint64_t last_ns = 0;
  double rate = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& job = jobs[i];
    JobOutcome o;
    o.ran = job.status == static_cast<std::uint32_t>(JobStatus::Done);
    o.timed_out = job.status == static_cast<std::uint32_t>(JobStatus::TimedOut);
    o.smid = job.smid;
    o.wanted_sm = units[i]->sm;
    attempt.outcomes.push_back(o);
    if (!o.ran) continue;
    ++traced_jobs_;
    warm_ns_ += static_cast<double>(job.globaltimer_warm - job.globaltimer_start);
    timed_ns_ += static_cast<double>(job.globaltimer_end - job.globaltimer_warm);
    first_ns = std::min(first_ns, job.globaltimer_start);
    last_ns = std::max(last_ns, job.globaltimer_end);
    rate = std::max(rate, cycles_per_ns(job.clock_start, job.clock_end, job.globaltimer_start,
                                        job.globaltimer_end));
    auto& r = results[i];
    r.sm = job.smid;
    if (job.chain != 0) {
      r.segment_loads = job.segment_loads;
      r.overhead_cycles = job.chain_overhead;
    }
    r.cycles.resize(recorded_values(units[i]->a));
    std::memcpy(r.cycles.data(), host_records + record_offsets[2 * i],
                r.cycles.size() * sizeof(std::uint32_t));
    if (job.indices_out != 0) {
      r.indices.resize(job.recorded_loads);
      const auto* src = host_records + record_offsets[2 * i + 1];
      unpack_indices(src, wide, r.indices);
    }
  }
  if (last_ns > first_ns) {
    attempt.span_ns = static_cast<double>(last_ns - first_ns);
    attempt.span_cycles = attempt.span_ns * rate;
  }
  attempt.jobs = std::move(jobs);
  return attempt;
}

}  // namespace gputopo::device::cuda
