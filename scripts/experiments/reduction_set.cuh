// The reduction experiments' shared part: every SM's warps (two blocks of 256 threads an SM) send
// `red.global.add` to a set of 128 B lines of a 64 MiB buffer in turn, each lane its own word (one
// request a warp instruction), `rounds` to each line a warp; the kernel times itself with
// %globaltimer (first block's start to last block's end), so a profiler around it does not enter
// the time.
#pragma once

#include <cstddef>
#include <vector>

#include "cuda_check.cuh"

constexpr size_t kBufferBytes = size_t{64} << 20;
constexpr unsigned kLineWords = 32;
constexpr int kMaxSet = 32;
constexpr int kThreads = 256;

struct Set {
  unsigned line[kMaxSet];
  int n;
};

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hammer(unsigned* buffer, Set set, int rounds, unsigned long long* span) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  __syncthreads();
  const unsigned long long start = now_ns();
  int at = static_cast<int>(warp % static_cast<unsigned>(set.n));
  for (int i = 0; i < rounds * set.n; ++i) {
    unsigned* p = buffer + size_t{set.line[at]} * kLineWords + lane;
    asm volatile("red.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
    if (++at == set.n) at = 0;
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMin(&span[0], start);
    atomicMax(&span[1], now_ns());
  }
}

// The buffer (allocated first, as in l2-slice-counters.cu, so that a run under a profiler reaches
// the same memory) and one launch's time in ns.
class Hammer {
 public:
  Hammer() {
    CHECK(cudaMalloc(&buffer_, kBufferBytes));
    CHECK(cudaMemset(buffer_, 0, kBufferBytes));
    CHECK(cudaMalloc(&span_, 2 * sizeof(unsigned long long)));
    CHECK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, 0));
  }

  unsigned long long ns(const std::vector<unsigned>& lines, int rounds) {
    Set set{};
    set.n = static_cast<int>(lines.size() < kMaxSet ? lines.size() : kMaxSet);
    for (int k = 0; k < set.n; ++k) set.line[k] = lines[static_cast<size_t>(k)];
    const unsigned long long init[2] = {~0ull, 0};
    CHECK(cudaMemcpy(span_, init, sizeof(init), cudaMemcpyHostToDevice));
    hammer<<<2 * sms_, kThreads>>>(buffer_, set, rounds, span_);
    CHECK(cudaDeviceSynchronize());
    unsigned long long got[2];
    CHECK(cudaMemcpy(got, span_, sizeof(got), cudaMemcpyDeviceToHost));
    return got[1] - got[0];
  }

 private:
  unsigned* buffer_ = nullptr;
  unsigned long long* span_ = nullptr;
  int sms_ = 0;
};
