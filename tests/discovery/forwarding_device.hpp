#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "device/device.hpp"

namespace gputopo::discovery::testing {

// A device that passes every call on to the one it wraps (the simulator): a test derives from it
// and overrides only what its backend does differently.
class ForwardingDevice : public device::Device {
 public:
  explicit ForwardingDevice(std::unique_ptr<device::Device> inner) : inner_(std::move(inner)) {}

  const device::DeviceInfo& info() const override { return inner_->info(); }
  device::ChaseBatchResult chase(const device::ChaseBatch& b) override { return inner_->chase(b); }
  device::ChaseBatchResult interfere(const device::InterferenceBatch& b) override {
    return inner_->interfere(b);
  }
  device::StreamResult stream(const device::StreamRequest& r) override { return inner_->stream(r); }
  std::vector<std::vector<int>> co_resident_sms(int size) override {
    return inner_->co_resident_sms(size);
  }
  device::ComputeBatchResult compute(const device::ComputeBatch& b) override {
    return inner_->compute(b);
  }
  device::DeviceState state() override { return inner_->state(); }
  device::PeerLink peer_link(int peer) override { return inner_->peer_link(peer); }
  device::ReadRateResult read_rate(const device::ReadRateRequest& r) override {
    return inner_->read_rate(r);
  }
  device::TransferResult transfer(const device::TransferRequest& r) override {
    return inner_->transfer(r);
  }
  void begin_phase(std::string_view name) override { inner_->begin_phase(name); }

 protected:
  device::Device& inner() { return *inner_; }

 private:
  std::unique_ptr<device::Device> inner_;
};

}  // namespace gputopo::discovery::testing
