#include "device/cuda/device_memory.hpp"

#include "device/cuda/check.hpp"

namespace gputopo::device::cuda {

DeviceArena::~DeviceArena() { release(); }

void DeviceArena::release() {
  if (raw_ != nullptr) cudaFree(raw_);
  raw_ = nullptr;
  capacity_ = 0;
}

std::uint8_t* DeviceArena::reserve(std::uint64_t bytes) {
  const std::uint64_t needed = bytes + alignment_;
  if (needed > capacity_) {
    release();
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (needed > free_bytes)
      throw Error(Error::Kind::BadRequest, what_ + " needs " + std::to_string(needed) +
                                               " B of device memory; " +
                                               std::to_string(free_bytes) + " B are free");
    check(cudaMalloc(&raw_, needed), "cudaMalloc (" + what_ + ")");
    capacity_ = needed;
  }
  const auto address = reinterpret_cast<std::uintptr_t>(raw_);
  const auto aligned = (address + alignment_ - 1) / alignment_ * alignment_;
  return reinterpret_cast<std::uint8_t*>(aligned);
}

}  // namespace gputopo::device::cuda
