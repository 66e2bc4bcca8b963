#include "device/cuda/kernels.hpp"

namespace gputopo::device::cuda {
namespace {

// One thread follows the chain: each element holds the address of the next. The loads bypass L1
// (.cg), so each crosses the link when the chain lives in a peer's memory.
__global__ void peer_load_chain(std::uint64_t start, std::uint64_t loads, std::uint64_t* sink) {
  std::uint64_t p = start;
  for (std::uint64_t i = 0; i < loads; ++i)
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  *sink = p;
}

}  // namespace

cudaError_t launch_load_chain(std::uint64_t start, std::uint64_t loads, std::uint64_t* sink,
                              cudaStream_t s) {
  peer_load_chain<<<1, 1, 0, s>>>(start, loads, sink);
  return cudaGetLastError();
}

}  // namespace gputopo::device::cuda
