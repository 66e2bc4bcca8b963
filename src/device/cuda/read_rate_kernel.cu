#include "device/cuda/read_rate_kernel.hpp"

namespace gputopo::device::cuda {
namespace {

constexpr int kInFlight = 8;    // independent loads a warp has in flight
constexpr int kLinesALoad = 4;  // a warp's load: 8 lanes x 16 B on each of 4 lines
constexpr int kLaneBytes = 16;

__device__ __forceinline__ uint4 load_cg(const void* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Blocks claim SMs: the first block on an SM of the set runs, the others return. Every warp of
// the set does `iterations` rounds of kInFlight loads, walking the line list from its own start,
// so that all SMs do equal work spread over all lines.
__global__ void read_rate_kernel(ReadRateArgs a) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  __shared__ int mine;
  if (threadIdx.x == 0)
    mine = sm < a.max_smid && a.rank_of_sm[sm] >= 0 && atomicCAS(&a.claimed[sm], 0, 1) == 0;
  __syncthreads();
  if (!mine) return;
  const unsigned warp =
      static_cast<unsigned>(a.rank_of_sm[sm]) * (blockDim.x / 32) + threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned line_of_lane = lane / 8;
  const unsigned byte_of_lane = (lane % 8) * kLaneBytes;
  std::uint64_t next = static_cast<std::uint64_t>(warp) * kInFlight * kLinesALoad;
  unsigned acc = 0;
  for (std::uint32_t it = 0; it < a.iterations; ++it) {
    uint4 v[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const std::uint64_t i = (next + k * kLinesALoad + line_of_lane) % a.lines;
      v[k] = load_cg(a.base + __ldg(a.line_offsets + i) + byte_of_lane);
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) acc += v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    next += kInFlight * kLinesALoad;
  }
  if (acc == 0xffffffffu) a.sink[sm] = acc;
}

}  // namespace

std::uint64_t read_rate_bytes_per_warp(std::uint32_t iterations) {
  return std::uint64_t{iterations} * kInFlight * kLinesALoad * 8 * kLaneBytes;
}

cudaError_t launch_read_rate(const ReadRateArgs& args, std::uint32_t blocks, std::uint32_t threads,
                             cudaStream_t s) {
  read_rate_kernel<<<blocks, threads, 0, s>>>(args);
  return cudaGetLastError();
}

}  // namespace gputopo::device::cuda
