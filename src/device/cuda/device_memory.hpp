#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace gputopo::device::cuda {

// One cudaMalloc'd region (never managed memory) that grows on demand and hands out a base
// aligned to `alignment`. Growing drops the old contents.
class DeviceArena {
 public:
  explicit DeviceArena(std::string what, std::uint64_t alignment = 256)
      : what_(std::move(what)), alignment_(alignment) {}
  ~DeviceArena();
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  // An aligned base with room for `bytes`. Throws Error(BadRequest) when the device cannot hold
  // them and Error(Measurement) for other CUDA failures.
  std::uint8_t* reserve(std::uint64_t bytes);
  void release();
  std::uint64_t capacity() const { return capacity_; }

 private:
  std::string what_;
  std::uint64_t alignment_;
  void* raw_ = nullptr;
  std::uint64_t capacity_ = 0;
};

}  // namespace gputopo::device::cuda
