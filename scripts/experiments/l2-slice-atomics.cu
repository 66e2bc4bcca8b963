// Do L2 slices bound the rate of reductions? Every SM's warps send `red.global.add` to two lines
// a and b in turn (each lane its own word, so one 128 B request a warp instruction), and the
// kernel times itself with %globaltimer (first start to last end over the blocks), so a profiler
// around it (Nsight Compute reading the per-slice maximum of reductions, which says whether a and
// b share a slice) does not enter the time. Same-slice pairs that take about twice as long as
// pairs on two slices show a per-slice bound: a microbenchmark signal for slices.
//   nvcc -std=c++17 -O3 -arch=sm_90 -o l2-slice-atomics l2-slice-atomics.cu
//   ./l2-slice-atomics PAIRS_FILE [REPEATS]
// PAIRS_FILE: "A B" a row (128 B lines of a 64 MiB buffer, allocated first as in
// l2-slice-counters.cu). Prints "launch,a,b,ns" rows, REPEATS (default 3) launches a pair.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "cuda_check.cuh"

constexpr size_t kBufferBytes = size_t{64} << 20;
constexpr unsigned kLineWords = 32;
constexpr int kIterations = 128;
constexpr int kThreads = 256;

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hammer(unsigned* buffer, unsigned a, unsigned b, unsigned long long* span) {
  const unsigned lane = threadIdx.x % 32;
  unsigned* pa = buffer + size_t{a} * kLineWords + lane;
  unsigned* pb = buffer + size_t{b} * kLineWords + lane;
  __syncthreads();
  const unsigned long long start = now_ns();
  for (int k = 0; k < kIterations; ++k) {
    asm volatile("red.global.add.u32 [%0], 1;" ::"l"(pa) : "memory");
    asm volatile("red.global.add.u32 [%0], 1;" ::"l"(pb) : "memory");
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMin(&span[0], start);
    atomicMax(&span[1], now_ns());
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PAIRS_FILE [REPEATS]\n", argv[0]);
    return 2;
  }
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  std::vector<uint2> pairs;
  std::ifstream in(argv[1]);
  for (unsigned a, b; in >> a >> b;)
    if (a < kBufferBytes / 128 && b < kBufferBytes / 128) pairs.push_back({a, b});
  unsigned* buffer = nullptr;
  unsigned long long* span = nullptr;
  CHECK(cudaMalloc(&buffer, kBufferBytes));
  CHECK(cudaMemset(buffer, 0, kBufferBytes));
  CHECK(cudaMalloc(&span, 2 * sizeof(unsigned long long)));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int launch = 0;
  for (const auto& pair : pairs)
    for (int r = 0; r < repeats; ++r) {
      const unsigned long long init[2] = {~0ull, 0};
      CHECK(cudaMemcpy(span, init, sizeof(init), cudaMemcpyHostToDevice));
      hammer<<<2 * sms, kThreads>>>(buffer, pair.x, pair.y, span);
      CHECK(cudaDeviceSynchronize());
      unsigned long long got[2];
      CHECK(cudaMemcpy(got, span, sizeof(got), cudaMemcpyDeviceToHost));
      std::printf("%d,%u,%u,%llu\n", launch++, pair.x, pair.y, got[1] - got[0]);
    }
  return 0;
}
