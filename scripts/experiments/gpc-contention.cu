// Which SMs share a GPC's path to the L2, without co-scheduling: one group of SMs (the
// aggressors) streams L2 hits with every thread while every other SM times a dependent chain of
// L2 hits. SMs behind the same GPC link or crossbar port as the aggressors should slow down more
// than the rest. Round 0 has no aggressors (the baseline); round g + 1 uses group g. A warm-up
// round without aggressors runs first and is not printed (on an H100 the first round read 60-80
// cycles slower on every SM).
//   nvcc -std=c++17 -O3 -arch=sm_90 -o gpc-contention gpc-contention.cu
//   ./gpc-contention "0,1,16,17;2,3,18,19;..." [THREADS] > contention.csv
// Groups are SM ids (%smid), ';' between groups; THREADS (32-1024, default 128) streaming threads
// per aggressor SM. Prints "round,sm,aggressor,min,median" rows: cycles per load of a chain of
// kChain `ld.global.cg`, kRepeats repeats per round.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_check.cuh"

constexpr int kChain = 256;
constexpr int kRepeats = 9;
constexpr int kMaxSm = 1024;
constexpr size_t kChaseWords = (1u << 20) / 4;    // 1 MiB chased by each victim
constexpr size_t kStreamWords = (16u << 20) / 4;  // 16 MiB streamed by the aggressors

__device__ __forceinline__ unsigned load_cg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

struct Shared {
  int claimed[kMaxSm];
  int ready;
  int victims_done;
};

__global__ void round_kernel(const unsigned* chase, const unsigned* stream, const char* aggressor,
                             int sms, int victims, Shared* s, unsigned* out, unsigned* sink) {
  const unsigned threads = blockDim.x;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  __shared__ int mine;
  if (threadIdx.x == 0) mine = atomicCAS(&s->claimed[sm], 0, 1) == 0;
  __syncthreads();
  if (!mine) return;
  if (threadIdx.x == 0) {
    atomicAdd(&s->ready, 1);
    const long long start = clock64();  // an SM that got no block would hold everyone: 1 s bound
    while (atomicAdd(&s->ready, 0) < sms && clock64() - start < (1ll << 31)) {
    }
  }
  __syncthreads();
  if (aggressor[sm]) {
    unsigned acc = 0;
    size_t i = (static_cast<size_t>(sm) * threads + threadIdx.x) * 32 % kStreamWords;
    const long long start = clock64();
    while (*(volatile int*)&s->victims_done < victims && clock64() - start < (1ll << 32)) {
      for (int k = 0; k < 64; ++k, i = (i + threads * 32) % kStreamWords)
        acc += load_cg(stream + i);
    }
    if (acc == 0xffffffffu) sink[sm] = acc;
    return;
  }
  if (threadIdx.x == 0) {
    unsigned v = (sm * 977u) % kChaseWords;
    for (int r = 0; r < kRepeats; ++r) {
      unsigned long long t0 = clock64();
      for (int c = 0; c < kChain; ++c) v = load_cg(chase + v);
      unsigned waited;
      asm volatile("add.u32 %0, %1, 1;" : "=r"(waited) : "r"(v));
      out[sm * kRepeats + r] = static_cast<unsigned>(clock64() - t0) + (waited >> 31);
    }
  }
  if (threadIdx.x == 0) atomicAdd(&s->victims_done, 1);
}

std::vector<std::vector<int>> parse_groups(const char* text) {
  std::vector<std::vector<int>> groups;
  std::stringstream all(text);
  std::string group;
  while (std::getline(all, group, ';')) {
    std::stringstream one(group);
    std::string sm;
    groups.emplace_back();
    while (std::getline(one, sm, ',')) groups.back().push_back(std::atoi(sm.c_str()));
  }
  return groups;
}

// Lines of the chased MiB in a scattered cycle: line i leads to line (i * 2,053 + 1) mod lines.
std::vector<unsigned> chase_cycle() {
  const unsigned lines = kChaseWords / 32;
  std::vector<unsigned> words(kChaseWords, 0);
  for (unsigned i = 0; i < lines; ++i) words[i * 32] = ((i * 2053u + 1) % lines) * 32;
  return words;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpc-contention \"sm,sm,...;sm,...\" [THREADS]\n");
    return 2;
  }
  const int threads = argc > 2 ? std::atoi(argv[2]) : 128;
  if (threads < 32 || threads > 1024) {
    std::fprintf(stderr, "gpc-contention: THREADS must be 32 to 1024\n");
    return 2;
  }
  const auto groups = parse_groups(argv[1]);
  int dev = 0, sms = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const auto words = chase_cycle();
  unsigned *chase, *stream, *out, *sink;
  char* aggressor;
  Shared* shared;
  CHECK(cudaMalloc(&chase, kChaseWords * 4));
  CHECK(cudaMemcpy(chase, words.data(), kChaseWords * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&stream, kStreamWords * 4));
  CHECK(cudaMemset(stream, 0, kStreamWords * 4));
  CHECK(cudaMalloc(&out, kMaxSm * kRepeats * 4));
  CHECK(cudaMalloc(&sink, kMaxSm * 4));
  CHECK(cudaMalloc(&aggressor, kMaxSm));
  CHECK(cudaMalloc(&shared, sizeof(Shared)));
  std::printf("round,sm,aggressor,min,median\n");
  for (int round = -1; round <= static_cast<int>(groups.size()); ++round) {
    std::vector<char> agg(kMaxSm, 0);
    if (round > 0)
      for (int sm : groups[round - 1]) agg[sm] = 1;
    int victims = sms;
    for (int sm = 0; sm < sms; ++sm) victims -= agg[sm];
    CHECK(cudaMemcpy(aggressor, agg.data(), kMaxSm, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(shared, 0, sizeof(Shared)));
    CHECK(cudaMemset(out, 0, kMaxSm * kRepeats * 4));
    round_kernel<<<sms * 8, threads>>>(chase, stream, aggressor, sms, victims, shared, out, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> cycles(kMaxSm * kRepeats);
    CHECK(cudaMemcpy(cycles.data(), out, cycles.size() * 4, cudaMemcpyDeviceToHost));
    for (int sm = 0; sm < sms; ++sm) {
      std::vector<unsigned> r(cycles.begin() + sm * kRepeats, cycles.begin() + (sm + 1) * kRepeats);
      std::sort(r.begin(), r.end());
      if (round < 0 || agg[sm] || r.back() == 0) continue;
      std::printf("%d,%d,%d,%.2f,%.2f\n", round, sm, round == 0 ? -1 : round - 1,
                  r.front() / double(kChain), r[kRepeats / 2] / double(kChain));
    }
  }
  return 0;
}
