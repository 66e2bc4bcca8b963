#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/device.hpp"

namespace gputopo::device::record::testing {

// A Device whose answers are computed from the request and a call counter, so that two calls
// with the same request differ, and that can be told to fail on one call.
class FakeDevice final : public Device {
 public:
  FakeDevice() {
    info_.name = "Fake GPU, \"quoted\"";
    info_.compute_capability = model::ComputeCapability{9, 0};
    info_.sm_count = 4;
    info_.warp_size = 32;
    info_.max_threads_per_block = 1024;
    info_.global_memory_bytes = 80ull << 30;
    info_.l2_bytes = 50ull << 20;
    info_.sm_clock_max_mhz = 1980.5;
    info_.pci_bus_id = model::Fact<std::string>::none("NVML not loaded");
    info_.cores_per_sm = model::Fact<int>::table(128, "cores-per-sm-by-cc");
    info_.max_block_dim = std::array<int, 3>{1024, 1024, 64};
    info_.mig_enabled = false;
  }

  std::optional<int> fail_on_call;  // 0-based count of calls

  const DeviceInfo& info() const override { return info_; }

  ChaseBatchResult chase(const ChaseBatch& batch) override {
    auto out = answer(tick(), batch.requests, batch.carveout_percent);
    // As a driver reads it back: at least one 32 B sector, 64 B by default.
    out.conditions.l2_fetch_limit_bytes =
        batch.l2_fetch_limit_bytes ? std::max(*batch.l2_fetch_limit_bytes, 32u) : 64u;
    return out;
  }

  ChaseBatchResult interfere(const InterferenceBatch& batch) override {
    const int call = tick();
    std::vector<ChaseRequest> timed;
    for (const auto& r : batch.requests) timed.push_back(r.a);
    return answer(call, timed, batch.carveout_percent);
  }

  StreamResult stream(const StreamRequest& request) override {
    const int call = tick();
    StreamResult r;
    for (std::uint32_t i = 0; i < request.repeats; ++i)
      r.gbps.push_back(static_cast<double>(request.bytes >> 20) + 0.25 * i + call);
    r.blocks = 264;
    r.threads_per_block = 512;
    r.conditions.elapsed_ns = 1234.5;
    return r;
  }

  std::vector<std::vector<int>> co_resident_sms(int cluster_size) override {
    tick();
    std::vector<std::vector<int>> groups(static_cast<std::size_t>(info_.sm_count() / cluster_size));
    for (int sm = 0; sm < info_.sm_count(); ++sm)
      groups[static_cast<std::size_t>(sm / cluster_size)].push_back(sm);
    return groups;
  }

 private:
  // The number of this call, counting from 0.
  int tick() {
    if (fail_on_call && *fail_on_call == calls_)
      throw Error(Error::Kind::Measurement,
                  "kernel ran past its deadline, call " + std::to_string(calls_));
    return calls_++;
  }

  ChaseBatchResult answer(int call, const std::vector<ChaseRequest>& requests,
                          std::optional<int> carveout) {
    ChaseBatchResult out;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const ChaseRequest& q = requests[i];
      ChaseResult r;
      r.sm = q.sm >= 0 ? q.sm : static_cast<int>(i);
      r.overhead_cycles = 18.125 + 0.25 * call;
      for (std::uint32_t l = 0; l < q.recorded_loads; ++l) {
        r.cycles.push_back(static_cast<std::uint32_t>(50 + q.array_bytes / 1024 + l % 7 + call));
        if (q.record_indices) r.indices.push_back((l * q.stride_bytes) % (q.array_bytes + 1) + l);
      }
      out.results.push_back(std::move(r));
    }
    out.conditions.carveout_percent = carveout;
    out.conditions.sm_clock_mhz_before = 1755.0;
    if (call % 2 == 0) out.conditions.sm_clock_mhz_after = 1710.0 + 1.0 / 3.0;
    out.conditions.clock_changed = call % 2 == 0;
    out.conditions.elapsed_ns = 7.4e6 / 3.0;
    out.conditions.elapsed_cycles = 1.3e7;
    out.conditions.reruns = static_cast<std::uint32_t>(call % 3);
    return out;
  }

  DeviceInfo info_;
  int calls_ = 0;
};

}  // namespace gputopo::device::record::testing
