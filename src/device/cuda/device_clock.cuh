#pragma once

// Special registers the kernels read, in inline PTX.
#include <cstdint>

namespace gputopo::device::cuda {

__device__ __forceinline__ std::uint32_t read_clock() {
  std::uint32_t t;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t)::"memory");
  return t;
}

__device__ __forceinline__ std::uint64_t read_clock64() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ std::uint64_t read_globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ int read_smid() {
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return static_cast<int>(id);
}

}  // namespace gputopo::device::cuda
