#pragma once

#include "device/device.hpp"

namespace gputopo::test {

// The DeviceInfo a CUDA backend gives for an H100 SXM (values as the runtime and NVML report
// them), with NVML missing so that its values are unavailable with a reason.
device::DeviceInfo h100_like_info();

// A device that only answers info(); every measurement throws Error(BadRequest).
class FakeDevice final : public device::Device {
 public:
  explicit FakeDevice(device::DeviceInfo info) : info_(std::move(info)) {}
  const device::DeviceInfo& info() const override { return info_; }
  device::ChaseBatchResult chase(const device::ChaseBatch&) override { refuse(); }
  device::ChaseBatchResult interfere(const device::InterferenceBatch&) override { refuse(); }
  device::StreamResult stream(const device::StreamRequest&) override { refuse(); }
  std::vector<std::vector<int>> co_resident_sms(int) override { refuse(); }

 private:
  [[noreturn]] static void refuse() {
    throw device::Error(device::Error::Kind::BadRequest, "the fake device does not measure");
  }
  device::DeviceInfo info_;
};

}  // namespace gputopo::test
