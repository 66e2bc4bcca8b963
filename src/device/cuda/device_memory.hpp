#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "device/cuda/scattered_memory.hpp"
#include "device/requests.hpp"

namespace gputopo::device::cuda {

// One cudaMalloc'd region (never managed memory), or with Mapping::Scattered one range of
// scattered chunks (ScatteredMemory), that grows on demand and hands out a base aligned to
// `alignment`. Growing drops the old contents.
class DeviceArena {
 public:
  explicit DeviceArena(std::string what, std::uint64_t alignment = 256,
                       Mapping mapping = Mapping::Driver)
      : what_(std::move(what)), alignment_(alignment), mapping_(mapping) {}
  ~DeviceArena();
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  // An aligned base with room for `bytes`. Throws Error(BadRequest) when the device cannot hold
  // them and Error(Measurement) for other CUDA failures.
  std::uint8_t* reserve(std::uint64_t bytes);
  void release();
  std::uint64_t capacity() const { return capacity_; }
  // The chunk of a scattered arena once it has mapped memory (0 before, and for cudaMalloc).
  std::uint64_t granule() const { return scattered_ ? scattered_->granule() : 0; }

 private:
  std::string what_;
  std::uint64_t alignment_;
  Mapping mapping_;
  std::unique_ptr<ScatteredMemory> scattered_;
  void* raw_ = nullptr;
  std::uint64_t capacity_ = 0;
};

}  // namespace gputopo::device::cuda
