#pragma once

#include <memory>

#include "device/device_state.hpp"

namespace gputopo::device::hip {

// rocm-smi's library (librocm_smi64), loaded at run time like NVML: the backend starts without
// it, and state() then says what it cannot tell.
class RocmSmi {
 public:
  RocmSmi();
  ~RocmSmi();
  RocmSmi(const RocmSmi&) = delete;
  RocmSmi& operator=(const RocmSmi&) = delete;

  bool loaded() const;
  // Other compute processes on the host's AMD GPUs (rocm-smi counts them for every GPU).
  DeviceState state() const;

 private:
  struct Api;
  std::unique_ptr<Api> api_;
};

}  // namespace gputopo::device::hip
