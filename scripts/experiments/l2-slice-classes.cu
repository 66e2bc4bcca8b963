// The L2 slices of consecutive lines by reduction contention, classed by the product's
// analysis::contention_classes: every SM's warps send `red.global.add` (each lane its own word) to
// a set of lines in turn, the same work to each line, and the kernel times itself with
// %globaltimer, so that Nsight Compute around it (the per-slice maximum of reductions says whether
// the set holds two lines of one slice) does not enter the time.
//   nvcc -std=c++20 -O3 -arch=sm_90 -I../../src -o l2-slice-classes l2-slice-classes.cu \
//     ../../src/analysis/contention_classes.cpp
//   ./l2-slice-classes [LINES] [ROUNDS]
// LINES (default 1024) consecutive 128 B lines of a 64 MiB buffer (allocated first, as in
// l2-slice-counters.cu); ROUNDS (default 8) reductions a warp to each line of a set. Prints
// "test,ns,line..." rows, then "class,line,class" rows; a summary on stderr.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "analysis/contention_classes.hpp"
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

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 8;
  unsigned* buffer = nullptr;
  unsigned long long* span = nullptr;
  CHECK(cudaMalloc(&buffer, kBufferBytes));
  CHECK(cudaMemset(buffer, 0, kBufferBytes));
  CHECK(cudaMalloc(&span, 2 * sizeof(unsigned long long)));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int test = 0;
  const auto seconds = [&](const std::vector<int>& members) {
    Set set{};
    set.n = static_cast<int>(members.size());
    for (int k = 0; k < set.n && k < kMaxSet; ++k) set.line[k] = static_cast<unsigned>(members[k]);
    const unsigned long long init[2] = {~0ull, 0};
    CHECK(cudaMemcpy(span, init, sizeof(init), cudaMemcpyHostToDevice));
    hammer<<<2 * sms, kThreads>>>(buffer, set, rounds, span);
    CHECK(cudaDeviceSynchronize());
    unsigned long long got[2];
    CHECK(cudaMemcpy(got, span, sizeof(got), cudaMemcpyDeviceToHost));
    std::printf("test,%d,%llu", test++, got[1] - got[0]);
    for (const int m : members) std::printf(",%d", m);
    std::printf("\n");
    return static_cast<double>(got[1] - got[0]) * 1e-9;
  };
  const auto c = gputopo::analysis::contention_classes(lines, seconds);
  for (int l = 0; l < lines; ++l) std::printf("class,%d,%d\n", l, c.label[static_cast<size_t>(l)]);
  std::fprintf(stderr,
               "%zu classes over %d lines in %d tests; t1 %.1f us; worst distinct %.2f, "
               "worst shared %.2f\n",
               c.sizes.size(), lines, c.tests, c.reference_seconds * 1e6, c.worst_distinct,
               c.worst_shared);
  return 0;
}
