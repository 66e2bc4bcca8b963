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

}  // namespace

cudaError_t launch_reductions(const ReductionArgs& args, std::uint32_t blocks, cudaStream_t s) {
  reduction_kernel<<<blocks, kReductionThreads, 0, s>>>(args);
  return cudaGetLastError();
}

}  // namespace gputopo::device::cuda
