#include "device/cuda/device_clock.cuh"
#include "device/cuda/reduction_kernel.hpp"

namespace gputopo::device::cuda {
namespace {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void __launch_bounds__(kReductionThreads) reduction_kernel(ReductionArgs a) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  __syncthreads();
  const unsigned long long start = global_ns();
  unsigned at = warp % a.count;
  for (unsigned i = 0; i < a.rounds * a.count; ++i) {
    std::uint32_t* word = a.base + a.line_words[at] + lane;
    asm volatile("red.global.add.u32 [%0], 1;" ::"l"(word) : "memory");
    if (++at == a.count) at = 0;
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMin(&a.span[0], start);
    atomicMax(&a.span[1], global_ns());
  }
}

// The last result goes to shared memory before the closing clock read: the store waits for it, and
// the read issues after the store.
__global__ void reduction_latency_kernel(ReductionArgs a) {
  __shared__ volatile unsigned seen;
  if (threadIdx.x != 0 || read_smid() != a.timed_sm || atomicCAS(a.claim, 0u, 1u) != 0) return;
  unsigned v = 0;
  for (unsigned r = 0; r < a.rounds; ++r)
    for (unsigned i = 0; i < a.count; ++i) {
      std::uint32_t* line = a.base + a.line_words[i];
      const long long start = clock64();
      for (std::uint32_t k = 0; k < kReductionChain; ++k) v = atomicAdd(line + (v >> 31), 1u);
      seen = v;
      a.cycles[r * a.count + i] = static_cast<unsigned>(clock64() - start);
    }
}

}  // namespace

cudaError_t launch_reduction_latency(const ReductionArgs& args, std::uint32_t blocks,
                                     cudaStream_t s) {
  reduction_latency_kernel<<<blocks, 32, 0, s>>>(args);
  return cudaGetLastError();
}

cudaError_t launch_reductions(const ReductionArgs& args, std::uint32_t blocks, cudaStream_t s) {
  reduction_kernel<<<blocks, kReductionThreads, 0, s>>>(args);
  return cudaGetLastError();
}

}  // namespace gputopo::device::cuda
