#include "device/sim/sim_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "device/input_file.hpp"
#include "device/sim/chase_engine.hpp"
#include "device/sim/compute_model.hpp"
#include "device/sim/environment.hpp"
#include "device/sim/l2_contention.hpp"
#include "device/sim/layout.hpp"
#include "device/sim/presets.hpp"
#include "device/sim/rng.hpp"
#include "device/sim/sim_info.hpp"
#include "device/sim/stream_model.hpp"

namespace gputopo::device::sim {
namespace {

constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 32;
// What one request may cost the simulator, so that no request runs for minutes or exhausts memory.
constexpr std::uint64_t kMaxLoads = std::uint64_t{1} << 30;
constexpr std::uint64_t kMaxRandomElements = std::uint64_t{1} << 26;
constexpr std::uint32_t kMaxRecordedLoads = 1u << 24;
// A configuration is a few KiB; anything much larger is not one.
constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{1} << 24;
constexpr double kLaunchCycles = 5000;  // a kernel launch, for the batch's elapsed time

[[noreturn]] void bad(const std::string& what) { throw Error(Error::Kind::BadRequest, what); }

class SimDevice final : public Device {
 public:
  SimDevice(SimConfig config, std::uint64_t seed)
      : config_(std::move(config)),
        info_(make_info(config_)),
        topology_(build_topology(config_.layout, config_.device.sm_count)),
        engine_(config_),
        seed_(seed) {}

  const DeviceInfo& info() const override { return info_; }

  ChaseBatchResult chase(const ChaseBatch& batch) override {
    check_carveout(batch.carveout_percent);
    if (batch.l2_fetch_limit_bytes && *batch.l2_fetch_limit_bytes > kMaxL2FetchLimitBytes)
      bad(fmt::format("l2_fetch_limit_bytes must be in [0, {}], is {}", kMaxL2FetchLimitBytes,
                      *batch.l2_fetch_limit_bytes));
    for (std::size_t i = 0; i < batch.requests.size(); ++i)
      check(batch.requests[i], batch.requests[i].sm, fmt::format("request {}", i));
    std::vector<Placement> placements;
    for (const auto& r : batch.requests) placements.push_back({r.space, r.sm});
    return run(placements, batch.carveout_percent, batch.l2_fetch_limit_bytes,
               [&](std::size_t i, int sm, std::uint64_t seed, double& busy) {
                 return engine_.chase(batch.requests[i], sm, batch.carveout_percent, seed, busy);
               });
  }

  ChaseBatchResult interfere(const InterferenceBatch& batch) override {
    check_carveout(batch.carveout_percent);
    for (std::size_t i = 0; i < batch.requests.size(); ++i) {
      const InterferenceRequest& r = batch.requests[i];
      const std::string where = fmt::format("request {}", i);
      check(r.a, r.sm, where + " (a)");
      check(r.b, r.sm, where + " (b)");
      if (chain_timed(r.a) || chain_timed(r.b))
        bad(where + ": interference requests are timed per load, not as a chain");
      if (warmup_of(r.a) != Warmup::Load || warmup_of(r.b) != Warmup::Load)
        bad(where + ": interference requests warm up with loads only");
      if (r.placement == InterferenceRequest::Placement::TwoThreads) {
        const auto limit = static_cast<std::uint32_t>(config_.device.max_threads_per_block);
        if (r.thread_a >= limit || r.thread_b >= limit)
          bad(fmt::format("{}: threads {} and {} must be below the block's {} threads", where,
                          r.thread_a, r.thread_b, limit));
      }
      if (r.placement == InterferenceRequest::Placement::TwoSms) {
        const int sms = config_.device.sm_count;
        if (r.sm < 0 || !r.sm_b || *r.sm_b < 0 || *r.sm_b >= sms || *r.sm_b == r.sm)
          bad(fmt::format("{}: two-SM interference needs sm and sm_b, two different SMs below {}",
                          where, sms));
        if (r.a.space == Space::Shared || r.b.space == Space::Shared)
          bad(where + ": shared memory is private to a block; two SMs cannot share it");
      }
      if (r.a.space == Space::Shared && r.b.space == Space::Shared &&
          r.a.array_bytes + r.b.array_bytes > shared_limit())
        bad(fmt::format("{}: the two shared arrays exceed the {} B a block may use", where,
                        shared_limit()));
    }
    std::vector<Placement> placements;
    for (const auto& r : batch.requests)
      placements.push_back({r.a.space, r.sm >= 0 ? r.sm : r.a.sm});
    return run(placements, batch.carveout_percent, std::nullopt,
               [&](std::size_t i, int sm, std::uint64_t seed, double& busy) {
                 return engine_.interfere(batch.requests[i], sm, batch.carveout_percent, seed,
                                          busy);
               });
  }

  StreamResult stream(const StreamRequest& request) override {
    if (request.bytes == 0) bad("stream: bytes must be > 0");
    if (request.repeats == 0) bad("stream: repeats must be > 0");
    const Space space = stream_space(request);
    if (space != Space::L2 && space != Space::L1 && space != Space::Shared)
      bad(fmt::format("stream: no stream over the {} space", to_string(space)));
    if (space != Space::L2 && request.kind != StreamKind::Read)
      bad(fmt::format("stream: the {} stream only reads", to_string(space)));
    if (request.sharing == StreamSharing::Shared &&
        (space != Space::L2 || request.kind != StreamKind::Read))
      bad("stream: a shared set is read from L2 only");
    const auto& bw = config_.bandwidth;
    if ((space == Space::L1 && bw.l1_read_bytes_per_clk <= 0) ||
        (space == Space::Shared && bw.shared_read_bytes_per_clk <= 0))
      bad(fmt::format("stream: this simulated GPU models no {} bandwidth", to_string(space)));
    const std::uint64_t buffers = request.kind == StreamKind::Copy ? 2 : 1;
    if (request.bytes > config_.device.global_memory_bytes / buffers)
      bad(fmt::format("stream: {} B buffers do not fit in {} B of device memory", request.bytes,
                      config_.device.global_memory_bytes));
    ++calls_;
    StreamResult result = model_stream(config_, request, next_seed(0));
    result.conditions.l2_fetch_limit_bytes = config_.l2_fetch_bytes(std::nullopt);
    return result;
  }

  ReadRateResult read_rate(const ReadRateRequest& request) override {
    if (auto why = read_rate_problem(request, config_.device.sm_count)) bad(*why);
    for (const std::uint64_t offset : request.line_offsets)
      if (offset >= config_.device.global_memory_bytes)
        bad(fmt::format("read rate: line offset {} lies past device memory", offset));
    // Its own seed sequence: read rates leave the other calls' noise as it was without them.
    const double rate = l2_read_rate_gbps(config_, topology_, request.sms, request.line_offsets);
    Rng rng(mix64(seed_ ^ phase_, mix64(~std::uint64_t{0}, ++read_rate_calls_)));
    ReadRateResult result;
    for (std::uint32_t r = 0; r < request.repeats; ++r)
      result.gbps.push_back(rate * (1 + config_.bandwidth.jitter_fraction * rng.normal()));
    result.conditions.l2_fetch_limit_bytes = config_.l2_fetch_bytes(std::nullopt);
    return result;
  }

  ReductionResult reductions(const ReductionRequest& request) override {
    if (auto why = reduction_problem(request, config_.device.sm_count)) bad(*why);
    if (config_.l2.slice_reductions_per_ns <= 0)
      bad("reductions: this simulated GPU models no L2 reduction rate (its l2 sets no "
          "slice_reductions_per_ns)");
    const double warps = 2.0 * config_.device.sm_count * 8;
    Rng rng(mix64(seed_ ^ phase_, mix64(~std::uint64_t{1}, ++read_rate_calls_)));
    ReductionResult result;
    if (request.timed_sm) {
      const double jitter = config_.l2.jitter_cycles / std::sqrt(double{kReductionChain});
      for (std::uint32_t r = 0; r < request.rounds; ++r)
        for (const std::uint64_t line : request.line_offsets)
          result.cycles.push_back(reduction_cycles(config_, *request.timed_sm, line) +
                                  jitter * std::abs(rng.normal()));
      return result;
    }
    result.seconds = reduction_seconds(config_.l2, request.line_offsets, warps, request.rounds) *
                     (1 + config_.bandwidth.jitter_fraction * rng.normal());
    return result;
  }

  void begin_phase(std::string_view name) override {
    phase_ = mix64(text_hash(name), ++phase_entries_[std::string(name)]);
    calls_ = 0;
    read_rate_calls_ = 0;
  }

  ComputeBatchResult compute(const ComputeBatch& batch) override {
    if (!config_.compute)
      bad("compute: this simulated GPU models no compute pipelines (its configuration has no "
          "\"compute\" section)");
    for (std::size_t i = 0; i < batch.requests.size(); ++i)
      if (const auto why = compute_problem(batch.requests[i], info_))
        bad(fmt::format("compute request {}: {}", i, *why));
    ++calls_;
    ComputeBatchResult out;
    double busy = 0;
    for (std::size_t i = 0; i < batch.requests.size(); ++i) {
      busy += kLaunchCycles;
      out.results.push_back(model_compute(config_, batch.requests[i], next_seed(i), busy));
    }
    RunConditions& c = out.conditions;
    c.sm_clock_mhz_before = config_.device.sm_clock_max_mhz;
    c.sm_clock_mhz_after = config_.device.sm_clock_max_mhz;
    c.elapsed_cycles = busy;
    c.elapsed_ns = busy / config_.device.sm_clock_max_mhz * 1e3;
    return out;
  }

  std::vector<std::vector<int>> co_resident_sms(int cluster_size) override {
    return cluster_groups(config_.layout, topology_, cluster_size);
  }

  // The simulated GPU alone: no other process, its clock at the maximum.
  DeviceState state() override {
    DeviceState s;
    s.other_processes = 0;
    s.others_sm_percent = 0;
    s.sm_clock_mhz = config_.device.sm_clock_max_mhz;
    return s;
  }

 private:
  std::uint64_t shared_limit() const {
    const auto& d = config_.device;
    const std::uint64_t own =
        config_.unified.kernel_shared_bytes + d.shared_reserved_per_block_bytes;
    return d.shared_per_block_optin_bytes > own ? d.shared_per_block_optin_bytes - own : 0;
  }

  void check_carveout(std::optional<int> carveout) const {
    if (carveout && (*carveout < 0 || *carveout > 100))
      bad(fmt::format("carveout_percent must be in [0, 100], is {}", *carveout));
  }

  void check(const ChaseRequest& r, int sm, const std::string& where) const {
    const std::string space(to_string(r.space));
    if (r.stride_bytes == 0) bad(fmt::format("{}: stride_bytes must be > 0", where));
    if (r.stride_bytes % 4 != 0)
      bad(fmt::format("{}: stride_bytes {} is not a multiple of the 4 B element", where,
                      r.stride_bytes));
    if (r.array_bytes < r.stride_bytes)
      bad(fmt::format("{}: array_bytes {} holds no element of stride {}", where, r.array_bytes,
                      r.stride_bytes));
    if (r.region.value_or(0) > kMaxRegion)
      bad(fmt::format("{}: region {} is above {}", where, *r.region, kMaxRegion));
    if (const auto why = chain_problem(r)) bad(fmt::format("{}: {}", where, *why));
    if (const auto why = sequence_problem(r)) bad(fmt::format("{}: {}", where, *why));
    if (const auto why = warmup_problem(r)) bad(fmt::format("{}: {}", where, *why));
    if (r.array_bytes / r.stride_bytes > kMaxElements)
      bad(fmt::format("{}: {} elements exceed the {} a chase may hold", where,
                      r.array_bytes / r.stride_bytes, kMaxElements));
    if (r.recorded_loads > kMaxRecordedLoads)
      bad(fmt::format("{}: recorded_loads {} exceeds {}", where, r.recorded_loads,
                      kMaxRecordedLoads));
    if (sm < -1 || sm >= config_.device.sm_count || r.sm < -1 || r.sm >= config_.device.sm_count)
      bad(fmt::format("{}: SM {} does not exist (the device has {})", where, std::max(sm, r.sm),
                      config_.device.sm_count));
    switch (r.space) {
      case Space::Constant:
        if (r.array_bytes > config_.device.constant_bytes)
          bad(fmt::format("{}: a constant array holds at most {} B, asked for {}", where,
                          config_.device.constant_bytes, r.array_bytes));
        break;
      case Space::Shared:
        if (r.array_bytes > shared_limit())
          bad(
              fmt::format("{}: a shared array holds at most {} B beside the kernel's own buffer, "
                          "asked for {}",
                          where, shared_limit(), r.array_bytes));
        break;
      default:
        if (r.array_bytes > config_.device.global_memory_bytes)
          bad(fmt::format("{}: a {} array of {} B exceeds device memory", where, space,
                          r.array_bytes));
    }
    const std::uint64_t elements = r.array_bytes / r.stride_bytes;
    if (elements * r.warmup_passes + r.recorded_loads > kMaxLoads)
      bad(
          fmt::format("{}: {} warm-up passes over {} elements exceed the simulator's {} loads per "
                      "request",
                      where, r.warmup_passes, elements, kMaxLoads));
    if (r.pattern == Pattern::Random && elements > kMaxRandomElements)
      bad(fmt::format("{}: a random chase over {} elements exceeds the simulator's {}", where,
                      elements, kMaxRandomElements));
  }

  // A call's noise is seeded by its phase (none before the first), the phase's entries so far (a
  // re-run draws anew) and its place in the phase.
  std::uint64_t phase_ = 0;
  std::map<std::string, std::uint64_t> phase_entries_;
  std::uint64_t read_rate_calls_ = 0;
  std::uint64_t next_seed(std::uint64_t index) {
    return mix64(seed_ ^ phase_, mix64(calls_, index));
  }

  // The space that decides how a request is scheduled, and the SM asked for (-1: any).
  struct Placement {
    Space space;
    int sm;
  };

  // Runs requests 0..n-1 through `runner(index, sm, seed, busy_cycles)` under the L2 fetch the
  // limit gives (the configured fetch, the driver's default, without one).
  template <typename Runner>
  ChaseBatchResult run(const std::vector<Placement>& placements, std::optional<int> carveout,
                       std::optional<std::uint32_t> l2_fetch_limit, Runner&& runner) {
    ++calls_;
    const std::uint32_t l2_fetch = config_.l2_fetch_bytes(l2_fetch_limit);
    engine_.set_l2_fetch_bytes(l2_fetch);
    ChaseBatchResult out;
    double concurrent = 0;  // SM-private requests run side by side, one per SM
    double sequential = 0;  // L2 requests run one after another
    for (std::size_t i = 0; i < placements.size(); ++i) {
      const bool private_space = sm_private(placements[i].space);
      const int sm = placements[i].sm >= 0
                         ? placements[i].sm
                         : (private_space ? static_cast<int>(i) % config_.device.sm_count : 0);
      double busy = kLaunchCycles;
      out.results.push_back(runner(i, sm, next_seed(i), busy));
      if (private_space)
        concurrent = std::max(concurrent, busy);
      else
        sequential += busy;
    }
    RunConditions& c = out.conditions;
    c.sm_clock_mhz_before = config_.device.sm_clock_max_mhz;
    c.sm_clock_mhz_after = config_.device.sm_clock_max_mhz;
    c.carveout_percent = carveout
                             ? carveout
                             : (config_.unified.cache >= 0
                                    ? std::optional<int>(config_.unified.default_carveout_percent)
                                    : std::nullopt);
    c.l2_fetch_limit_bytes = l2_fetch;
    c.elapsed_cycles = concurrent + sequential;
    c.elapsed_ns = c.elapsed_cycles / config_.device.sm_clock_max_mhz * 1e3;
    return out;
  }

  SimConfig config_;
  DeviceInfo info_;
  Topology topology_;
  ChaseEngine engine_;
  std::uint64_t seed_;
  std::uint64_t calls_ = 0;
};

std::string preset_list() {
  std::string list;
  for (const auto& name : preset_names()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : embedded_presets()) names.emplace_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

SimConfig load_config(const std::string& preset_or_file) {
  for (const auto& [name, text] : embedded_presets())
    if (name == preset_or_file)
      return parse_config(std::string(text), fmt::format("preset {}", name));
  std::error_code ec;
  if (!std::filesystem::exists(preset_or_file, ec))
    bad(fmt::format("{}: neither a preset ({}) nor a readable file", preset_or_file,
                    preset_list()));
  try {
    return parse_config(read_input_file(preset_or_file, kMaxConfigBytes), preset_or_file);
  } catch (const Error&) {
    throw;
  } catch (const std::runtime_error& e) {
    bad(fmt::format("{}: {}", preset_or_file, e.what()));
  }
}

std::unique_ptr<Device> make_device(SimConfig config, std::uint64_t seed) {
  // A seed sweep of the tests (docs/testing.md): every simulated GPU draws other noise.
  if (const char* reseed = std::getenv("GPUTOPO_SIM_RESEED"); reseed && *reseed)
    seed = mix64(seed, std::strtoull(reseed, nullptr, 10));
  const auto load = config.competing_load;
  const auto faults = config.faults;
  return with_environment(std::make_unique<SimDevice>(std::move(config), seed), load, faults, seed);
}

std::unique_ptr<Device> open(const std::string& preset_or_file, std::uint64_t seed) {
  return make_device(load_config(preset_or_file), seed);
}

}  // namespace gputopo::device::sim
