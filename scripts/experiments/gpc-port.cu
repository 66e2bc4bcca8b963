// Does a GPC's path to the L2 bound its SMs' L2 read rate, and which GPC's path does an SM use:
// a set of SMs reads a 16 MiB L2-resident buffer (`ld.global.cg.v4`, 32 warps a SM, each warp
// 8 independent 512 B chunks in flight) and the set's bytes per second are timed. Where a GPC's
// port bounds the rate, a GPC reads less than as many SMs spread over the GPCs, and a TPC added to
// its own GPC adds nothing while it adds its full rate to another GPC.
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
constexpr int kWarps = 32;
constexpr int kInFlight = 8;  // independent 512 B chunks a warp loads at once
constexpr int kPasses = 64;   // passes over the buffer, split among the set's warps
constexpr int kTimings = 5;
constexpr size_t kChunks = (16u << 20) / 512;

__device__ __forceinline__ uint4 load_cg(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Blocks claim SMs; each SM of the set runs one block of kWarps warps, the rest return.
__global__ void read_set(const uint4* buffer, const int* rank_of_sm, int set_size, int* claimed,
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
  for (size_t chunk = warp; chunk < kChunks * kPasses; chunk += warps * kInFlight) {
    uint4 v[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      v[k] = load_cg(buffer + ((chunk + k * warps) % kChunks) * 32 + lane);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) acc += v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
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
  uint4* buffer;
  unsigned* sink;
  int *rank, *claimed;
  CHECK(cudaMalloc(&buffer, kChunks * 512));
  CHECK(cudaMemset(buffer, 0, kChunks * 512));
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
    const double bytes = static_cast<double>(kChunks) * kPasses * 512;
    std::printf("%s,%d,%.1f\n", test.substr(0, eq).c_str(), size,
                bytes / (ms[1 + kTimings / 2] * 1e-3) / 1e9);
  }
  return 0;
}
