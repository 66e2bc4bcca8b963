#pragma once

#include <functional>

#include "device/device.hpp"

namespace gputopo::discovery::testing {

// A device with one cache of `cache_bytes` per space, fully associative, that answers every chase
// by arithmetic: warm loads hit (hit cycles) while the array fits, else miss. Enough to drive the
// plan; the end-to-end tests use the simulator.
class FakeDevice : public device::Device {
 public:
  explicit FakeDevice(std::uint64_t cache_bytes = 64 * 1024) : cache_bytes_(cache_bytes) {
    info_.name = "fake";
    info_.sm_count = 16;
    info_.max_threads_per_block = 1024;
    info_.shared_per_sm_bytes = 128 * 1024;
    info_.constant_bytes = 64 * 1024;
    info_.sm_clock_max_mhz = 1000;
  }

  const device::DeviceInfo& info() const override { return info_; }
  device::DeviceInfo& edit_info() { return info_; }

  device::ChaseBatchResult chase(const device::ChaseBatch& batch) override {
    ++batches;
    if (on_batch) on_batch();
    device::ChaseBatchResult out;
    for (const auto& r : batch.requests) out.results.push_back(one(r));
    out.conditions.carveout_percent = batch.carveout_percent;
    return out;
  }

  device::ChaseBatchResult interfere(const device::InterferenceBatch& batch) override {
    ++batches;
    if (on_batch) on_batch();
    device::ChaseBatchResult out;
    for (const auto& r : batch.requests) {
      auto a = r.a;
      // One cache for everything: B's array adds to A's footprint.
      a.array_bytes += r.b.array_bytes;
      auto res = one(a);
      out.results.push_back(res);
    }
    return out;
  }

  device::StreamResult stream(const device::StreamRequest&) override { return {}; }
  std::vector<std::vector<int>> co_resident_sms(int) override { return {}; }

  int batches = 0;
  std::function<void()> on_batch;
  bool fail_measurements = false;

 private:
  device::ChaseResult one(const device::ChaseRequest& r) const {
    if (fail_measurements) throw device::Error(device::Error::Kind::Measurement, "fake failure");
    device::ChaseResult res;
    res.overhead_cycles = 10;
    const bool fits =
        r.space != device::Space::L2 && r.array_bytes <= cache_bytes_ && r.warmup_passes > 0;
    for (std::uint32_t i = 0; i < r.recorded_loads; ++i) {
      const std::uint32_t jitter = (i * 7u) % 3u;
      res.cycles.push_back((fits ? 40u : 300u) + jitter);
    }
    return res;
  }

  device::DeviceInfo info_;
  std::uint64_t cache_bytes_;
};

}  // namespace gputopo::discovery::testing
