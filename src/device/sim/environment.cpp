#include "device/sim/environment.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "device/sim/rng.hpp"

namespace gputopo::device::sim {
namespace {

constexpr double kLoadedClockShare = 0.9;  // the SM clock under the other process's load

class EnvironmentDevice final : public Device {
 public:
  EnvironmentDevice(std::unique_ptr<Device> inner, const std::optional<CompetingLoadSpec>& load,
                    const FaultSpec& faults, std::uint64_t seed)
      : inner_(std::move(inner)), load_(load), faults_(faults), seed_(mix64(seed, 0x10ad)) {}

  const DeviceInfo& info() const override { return inner_->info(); }

  ChaseBatchResult chase(const ChaseBatch& batch) override {
    std::uint64_t bytes = 0;
    for (const auto& r : batch.requests) bytes += r.array_bytes;
    begin_call("chase kernel", bytes);
    return loaded(inner_->chase(batch));
  }

  ChaseBatchResult interfere(const InterferenceBatch& batch) override {
    std::uint64_t bytes = 0;
    for (const auto& r : batch.requests) bytes += r.a.array_bytes + r.b.array_bytes;
    begin_call("chase kernel (interference)", bytes);
    return loaded(inner_->interfere(batch));
  }

  StreamResult stream(const StreamRequest& request) override {
    const std::uint64_t buffers = request.kind == StreamKind::Copy ? 2 : 1;
    begin_call("stream kernel", request.bytes * buffers);
    StreamResult result = inner_->stream(request);
    mark_clock(result.conditions);
    if (in_load()) {
      Rng rng(mix64(seed_, call_));
      for (double& g : result.gbps) g *= load_->bandwidth_factor * (0.9 + 0.2 * rng.uniform());
    }
    return result;
  }

  ReadRateResult read_rate(const ReadRateRequest& request) override {
    begin_call("read-rate kernel", request.line_offsets.size() * 128);
    ReadRateResult result = inner_->read_rate(request);
    mark_clock(result.conditions);
    if (in_load()) {
      Rng rng(mix64(seed_, call_));
      for (double& g : result.gbps) g *= load_->bandwidth_factor * (0.9 + 0.2 * rng.uniform());
    }
    return result;
  }

  ReductionResult reductions(const ReductionRequest& request) override {
    begin_call("reduction kernel", request.line_offsets.size() * 128);
    ReductionResult result = inner_->reductions(request);
    mark_clock(result.conditions);
    if (in_load()) {
      Rng rng(mix64(seed_, call_));
      result.seconds /= load_->bandwidth_factor * (0.9 + 0.2 * rng.uniform());
    }
    return result;
  }

  ComputeBatchResult compute(const ComputeBatch& batch) override {
    begin_call("compute kernel", 0);
    ComputeBatchResult result = inner_->compute(batch);
    mark_clock(result.conditions);
    if (in_load()) {
      Rng rng(mix64(seed_, call_));
      for (auto& r : result.results)
        for (auto& c : r.cycles)
          c = static_cast<std::uint64_t>(static_cast<double>(c) * load_->slowdown *
                                         (1 + 0.2 * rng.uniform()));
      result.conditions.elapsed_ns *= load_->slowdown;
    }
    return result;
  }

  std::vector<std::vector<int>> co_resident_sms(int cluster_size) override {
    begin_call("cluster kernel", 0);
    return inner_->co_resident_sms(cluster_size);
  }

  void begin_phase(std::string_view name) override { inner_->begin_phase(name); }

  DeviceState state() override {
    DeviceState s = inner_->state();
    if (load_ && load_->nvml_visible) {
      const bool now = call_ >= load_->from_call && call_ < load_->to_call;
      s.other_processes = now ? 1 : 0;
      s.others_sm_percent = (now || loaded_since_state_) ? 100.0 : 0.0;
    }
    loaded_since_state_ = false;
    return s;
  }

 private:
  // Counts the call, and raises the fault it meets.
  void begin_call(const std::string& kernel, std::uint64_t bytes) {
    call_ = calls_++;
    if (faults_.lost_at_call && call_ >= *faults_.lost_at_call)
      throw Error(Error::Kind::Lost,
                  fmt::format("GPU {} is lost: {} failed with cudaErrorDevicesUnavailable (the "
                              "simulated GPU fell off the bus at call {})",
                              info().index, kernel, *faults_.lost_at_call));
    if (faults_.hang_at_call && call_ == *faults_.hang_at_call)
      throw Error(Error::Kind::Lost,
                  fmt::format("{} still running after its deadline (simulated hang at call {}); "
                              "a kernel cannot be cancelled, so the run ends",
                              kernel, call_));
    if (faults_.free_memory_bytes && bytes > *faults_.free_memory_bytes)
      throw Error(Error::Kind::OutOfMemory,
                  fmt::format("{} needs {} B of device memory, {} B are free (the simulated GPU's "
                              "other processes hold the rest)",
                              kernel, bytes, *faults_.free_memory_bytes));
    if (in_load()) loaded_since_state_ = true;
  }

  bool in_load() const { return load_ && call_ >= load_->from_call && call_ < load_->to_call; }

  // The clock moves during the call in which the other process's work starts, and during the
  // one in which it ends.
  void mark_clock(RunConditions& c) const {
    if (!load_ || (call_ != load_->from_call && call_ != load_->to_call)) return;
    const double idle = c.sm_clock_mhz_before.value_or(0);
    if (call_ == load_->from_call)
      c.sm_clock_mhz_after = idle * kLoadedClockShare;
    else
      c.sm_clock_mhz_before = idle * kLoadedClockShare;
    c.clock_changed = true;
  }

  ChaseBatchResult loaded(ChaseBatchResult result) {
    mark_clock(result.conditions);
    if (!in_load()) return result;
    Rng rng(mix64(seed_, call_));
    for (auto& r : result.results) {
      for (auto& c : r.cycles) {
        const double base = std::max(0.0, c - r.overhead_cycles);
        double v = r.overhead_cycles + base * load_->slowdown;
        if (rng.uniform() < load_->extra_rate) v += rng.uniform() * load_->extra_cycles;
        c = static_cast<std::uint32_t>(std::min(v, 4e9));
      }
    }
    result.conditions.elapsed_ns *= load_->slowdown;
    return result;
  }

  std::unique_ptr<Device> inner_;
  std::optional<CompetingLoadSpec> load_;
  FaultSpec faults_;
  std::uint64_t seed_;
  std::uint64_t calls_ = 0;
  std::uint64_t call_ = 0;
  bool loaded_since_state_ = false;
};

}  // namespace

std::unique_ptr<Device> with_environment(std::unique_ptr<Device> inner,
                                         const std::optional<CompetingLoadSpec>& load,
                                         const FaultSpec& faults, std::uint64_t seed) {
  if (!load && !faults.free_memory_bytes && !faults.hang_at_call && !faults.lost_at_call)
    return inner;
  return std::make_unique<EnvironmentDevice>(std::move(inner), load, faults, seed);
}

}  // namespace gputopo::device::sim
