// Does a GPC's path to the L2 bound its SMs' L2 read rate, and which GPC's path does an SM use:
// a set of SMs reads a 16 MiB L2-resident buffer (`ld.global.cg`, 16 warps a SM, each lane one
// word of a 128 B line) and the set's bytes per second are timed. Where a GPC's port bounds the
// rate, a GPC reads less than as many SMs spread over the GPCs, and a TPC added to its own GPC
// adds nothing while it adds its full rate to another GPC.
//   nvcc -std=c++17 -O3 -arch=sm_90 -o gpc-port gpc-port.cu
//   ./gpc-port "label=sm,sm,...;label=sm,...;..." > port.csv
// Prints "label,sms,gbps" rows, the median of 5 launches each.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_check.cuh"

constexpr int kMaxSm = 1024;
constexpr int kWarps = 16;
constexpr int kPasses = 16;  // passes over the buffer, split among the set's warps
constexpr int kTimings = 5;
constexpr size_t kLines = (16u << 20) / 128;

__device__ __forceinline__ unsigned load_cg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Blocks claim SMs; each SM of the set runs one block of kWarps warps, the rest return.
__global__ void read_set(const unsigned* buffer, const int* rank_of_sm, int set_size, int* claimed,
                         unsigned* sink) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  __shared__ int mine;
  if (threadIdx.x == 0) mine = rank_of_sm[sm] >= 0 && atomicCAS(&claimed[sm], 0, 1) == 0;
  __syncthreads();
  if (!mine) return;
  const size_t warp = static_cast<size_t>(rank_of_sm[sm]) * kWarps + threadIdx.x / 32;
  const size_t warps = static_cast<size_t>(set_size) * kWarps;
  const unsigned lane = threadIdx.x % 32;
  unsigned acc = 0;
  for (size_t line = warp; line < kLines * kPasses; line += warps)
    acc += load_cg(buffer + (line % kLines) * 32 + lane);
  if (acc == 0xffffffffu) sink[sm] = acc;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpc-port \"label=sm,sm,...;label=sm,...\"\n");
    return 2;
  }
  int dev = 0, sms = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  unsigned *buffer, *sink;
  int *rank, *claimed;
  CHECK(cudaMalloc(&buffer, kLines * 128));
  CHECK(cudaMemset(buffer, 0, kLines * 128));
  CHECK(cudaMalloc(&sink, kMaxSm * 4));
  CHECK(cudaMalloc(&rank, kMaxSm * 4));
  CHECK(cudaMalloc(&claimed, kMaxSm * 4));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("label,sms,gbps\n");
  std::stringstream all(argv[1]);
  std::string test;
  while (std::getline(all, test, ';')) {
    const auto eq = test.find('=');
    std::vector<int> rank_of(kMaxSm, -1);
    std::stringstream list(test.substr(eq + 1));
    std::string sm;
    int size = 0;
    while (std::getline(list, sm, ','))
      if (int v = std::atoi(sm.c_str()); v >= 0 && v < sms && rank_of[v] < 0) rank_of[v] = size++;
    if (size == 0) continue;
    CHECK(cudaMemcpy(rank, rank_of.data(), kMaxSm * 4, cudaMemcpyHostToDevice));
    std::vector<float> ms(kTimings + 1);
    for (auto& m : ms) {  // the first launch warms the L2 and is dropped
      CHECK(cudaMemset(claimed, 0, kMaxSm * 4));
      CHECK(cudaEventRecord(start));
      read_set<<<sms * 4, kWarps * 32>>>(buffer, rank, size, claimed, sink);
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaEventElapsedTime(&m, start, stop));
    }
    std::sort(ms.begin() + 1, ms.end());
    const double bytes = static_cast<double>(kLines) * kPasses * 128;
    std::printf("%s,%d,%.1f\n", test.substr(0, eq).c_str(), size,
                bytes / (ms[1 + kTimings / 2] * 1e-3) / 1e9);
  }
  return 0;
}
