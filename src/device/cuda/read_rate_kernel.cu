#include "device/cuda/device_clock.cuh"
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

// All four words of a load feed the result: ptxas narrows a vector load whose other words go
// unused to a 4 B one a lane (LDG.E, not LDG.E.128).
__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// Blocks claim SMs: the first block on an SM of the set runs, the others return. Every warp of
// the set does `iterations` rounds of kInFlight loads, so that all SMs do equal work spread over
// all lines. The bounds let ptxas keep all kInFlight loads in flight (63 registers of the 64 a
// thread may have; without them it reused registers, with at most six loads in flight).
template <bool kEvenlySpaced>
__global__ void __launch_bounds__(kReadRateThreads, 1) read_rate_kernel(ReadRateArgs a) {
  const auto sm = static_cast<unsigned>(read_smid());
  __shared__ int mine;
  if (threadIdx.x == 0)
    mine = sm < a.max_smid && a.rank_of_sm[sm] >= 0 && atomicCAS(&a.claimed[sm], 0, 1) == 0;
  __syncthreads();
  if (!mine) return;
  const unsigned warp =
      static_cast<unsigned>(a.rank_of_sm[sm]) * (blockDim.x / 32) + threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned byte_of_lane = (lane % 8) * kLaneBytes;
  // Lines go in groups of kLinesALoad, one group a warp's load. The set's warps read adjacent
  // groups, and a warp's kInFlight loads lie a whole set of warps apart: at any time the set
  // reads a wide window of the list, spread over the L2's slices. Positions stay in range by one
  // subtraction: a modulo, or a multiply, a load would bound the rate rather than the L2.
  const auto lines = static_cast<std::uint32_t>(a.lines);
  const std::uint32_t groups = (lines + kLinesALoad - 1) / kLinesALoad;
  const std::uint32_t warps = a.set_size * (blockDim.x / 32);
  const std::uint32_t step =
      static_cast<std::uint32_t>((std::uint64_t{warps} * kInFlight) % groups);
  std::uint32_t at[kInFlight];
#pragma unroll
  for (int k = 0; k < kInFlight; ++k)
    at[k] = static_cast<std::uint32_t>(
        (std::uint64_t{warp} + static_cast<std::uint64_t>(k) * warps) % groups);
  unsigned acc = 0;
  if (kEvenlySpaced) {
    // Byte positions: a group is kLinesALoad lines `spacing` apart.
    const std::uint64_t group_bytes = kLinesALoad * a.spacing;
    const std::uint64_t span = std::uint64_t{groups} * group_bytes;
    const std::uint64_t step_bytes = std::uint64_t{step} * group_bytes;
    const std::uint8_t* lane_base = a.base + a.first_offset + (lane / 8) * a.spacing + byte_of_lane;
    std::uint64_t off[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) off[k] = std::uint64_t{at[k]} * group_bytes;
    for (std::uint32_t it = 0; it < a.iterations; ++it) {
      uint4 v[kInFlight];
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) v[k] = load_cg(lane_base + off[k]);
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) {
        acc ^= fold(v[k]);
        off[k] += step_bytes;
        if (off[k] >= span) off[k] -= span;
      }
    }
  } else {
    for (std::uint32_t it = 0; it < a.iterations; ++it) {
      uint4 v[kInFlight];
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) {
        std::uint32_t line = at[k] * kLinesALoad + lane / 8;
        while (line >= lines) line -= lines;
        v[k] = load_cg(a.base + __ldg(a.line_offsets + line) + byte_of_lane);
      }
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) {
        acc ^= fold(v[k]);
        at[k] += step;
        if (at[k] >= groups) at[k] -= groups;
      }
    }
  }
  if (acc == 0xffffffffu) a.sink[sm] = acc;
}

}  // namespace

std::uint64_t read_rate_bytes_per_warp(std::uint32_t iterations) {
  return std::uint64_t{iterations} * kInFlight * kLinesALoad * 8 * kLaneBytes;
}

cudaError_t launch_read_rate(const ReadRateArgs& args, std::uint32_t blocks, std::uint32_t threads,
                             cudaStream_t s) {
  if (args.spacing != 0)
    read_rate_kernel<true><<<blocks, threads, 0, s>>>(args);
  else
    read_rate_kernel<false><<<blocks, threads, 0, s>>>(args);
  return cudaGetLastError();
}

}  // namespace gputopo::device::cuda
