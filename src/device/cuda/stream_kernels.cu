// Bandwidth kernels: grid-stride loops over 16-byte vectors, four independent accesses in flight
// per thread and iteration, `passes` times over the buffer (small buffers: less launch overhead).
#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/kernels.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr int kUnroll = 4;

__device__ __forceinline__ std::uint32_t fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

__global__ void read_kernel(const uint4* __restrict__ src, std::uint64_t n, std::uint32_t passes,
                            std::uint32_t* sink) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  std::uint32_t acc = 0;
  for (std::uint32_t p = 0; p < passes; ++p) {
    std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
      uint4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) v[u] = __ldcg(src + i + u * stride);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) acc ^= fold(v[u]);
    }
    for (; i < n; i += stride) acc ^= fold(__ldcg(src + i));
  }
  // Never true for the data written here, but the compiler cannot know: the loads stay.
  if (acc == 0x9E3779B9U) sink[0] = acc;
}

__global__ void write_kernel(uint4* __restrict__ dst, std::uint64_t n, std::uint32_t passes) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint32_t p = 0; p < passes; ++p) {
    std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const auto w = static_cast<std::uint32_t>(i + u * stride) + p;
        dst[i + u * stride] = make_uint4(w, w ^ 0x55555555U, w + 1, ~w);
      }
    }
    for (; i < n; i += stride) {
      const auto w = static_cast<std::uint32_t>(i) + p;
      dst[i] = make_uint4(w, w ^ 0x55555555U, w + 1, ~w);
    }
  }
}

__global__ void copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, std::uint64_t n,
                            std::uint32_t passes) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint32_t p = 0; p < passes; ++p) {
    std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
      uint4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) v[u] = __ldcg(src + i + u * stride);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) dst[i + u * stride] = v[u];
    }
    for (; i < n; i += stride) dst[i] = __ldcg(src + i);
  }
}

}  // namespace

cudaError_t launch_stream(int kind, void* dst, const void* src, std::uint64_t vectors,
                          std::uint32_t passes, std::uint32_t blocks, std::uint32_t threads,
                          std::uint32_t* sink, cudaStream_t s) {
  switch (kind) {
    case 0:
      read_kernel<<<blocks, threads, 0, s>>>(static_cast<const uint4*>(src), vectors, passes, sink);
      break;
    case 1:
      write_kernel<<<blocks, threads, 0, s>>>(static_cast<uint4*>(dst), vectors, passes);
      break;
    case 2:
      copy_kernel<<<blocks, threads, 0, s>>>(static_cast<uint4*>(dst),
                                             static_cast<const uint4*>(src), vectors, passes);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace gputopo::device::cuda
