// Which L2 lines share a slice, by contention: warps on many SMs load two lines a and b in turn
// (`ld.global.cg`, each lane one word, so one 128 B request a load). A slice serves a bounded
// rate of requests; two lines of one slice take about the time of one line hammered alone
// twice as long, two lines of different slices about half that.
//   nvcc -std=c++17 -O3 -arch=sm_90 -o l2-slice-contention l2-slice-contention.cu
//   ./l2-slice-contention [LINES] [SMS] > slices.csv
// LINES (default 1024): consecutive 128 B lines 0 .. LINES - 1 of a 64 MiB buffer are classed;
// SMS (default all): comma-separated %smid values that hammer, the others return at once (to
// hammer from the SMs of one L2 segment's side only). Each line is paired with the representative
// of every class found so far, in order, until a pair takes at least kSameShare of the time of
// the same two loads on one line; else it founds a new class. Prints "kind,a,b,us,ratio" rows:
// kind "one" (line a alone, twice the loads), "pair" (lines a and b), with ratio = time / the
// median "one" time; then "class,line,class" rows (the online classes). Exit 3 where more than
// 256 classes appear (no slice signal: every pair reads apart).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_check.cuh"

constexpr int kWarps = 8;            // per SM
constexpr int kIterations = 64;      // pairs of loads per warp
constexpr int kTimings = 3;          // launches per test, the median kept
constexpr double kSameShare = 0.75;  // a pair at >= 0.75 of the one-line time shares its slice
constexpr size_t kMaxClasses = 256;  // more: the signal is not there; stop
constexpr int kMaxSm = 1024;
constexpr size_t kBufferWords = (64u << 20) / 4;

__device__ __forceinline__ unsigned load_cg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__global__ void hammer(const unsigned* buffer, unsigned a, unsigned b, const char* hammers,
                       unsigned* sink) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (!hammers[sm]) return;
  const unsigned lane = threadIdx.x % 32;
  const unsigned* pa = buffer + a * 32 + lane;
  const unsigned* pb = buffer + b * 32 + lane;
  unsigned acc = 0;
#pragma unroll 16
  for (int k = 0; k < kIterations; ++k) acc += load_cg(pa) + load_cg(pb);
  if (acc == 0xffffffffu) sink[sm] = acc;
}

struct Bench {
  const unsigned* buffer;
  const char* hammers;
  unsigned* sink;
  int blocks;
  cudaEvent_t start, stop;

  double time_us(unsigned a, unsigned b) {
    std::vector<float> ms(kTimings);
    for (auto& m : ms) {
      CHECK(cudaEventRecord(start));
      hammer<<<blocks, kWarps * 32>>>(buffer, a, b, hammers, sink);
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaEventElapsedTime(&m, start, stop));
    }
    std::sort(ms.begin(), ms.end());
    return ms[kTimings / 2] * 1000.0;
  }
};

std::vector<char> parse_sms(const char* text, int sms) {
  std::vector<char> on(kMaxSm, text == nullptr ? 1 : 0);
  if (text == nullptr) return on;
  std::stringstream all(text);
  std::string sm;
  while (std::getline(all, sm, ','))
    if (int v = std::atoi(sm.c_str()); v >= 0 && v < sms) on[v] = 1;
  return on;
}

int main(int argc, char** argv) {
  const unsigned lines = argc > 1 ? std::atoi(argv[1]) : 1024;
  if (lines < 2 || lines > kBufferWords / 32) {
    std::fprintf(stderr, "l2-slice-contention: LINES must be 2 to %zu\n", kBufferWords / 32);
    return 2;
  }
  int dev = 0, sms = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const auto on = parse_sms(argc > 2 ? argv[2] : nullptr, sms);
  Bench bench{};
  unsigned* buffer;
  char* hammers;
  CHECK(cudaMalloc(&buffer, kBufferWords * 4));
  CHECK(cudaMemset(buffer, 0, kBufferWords * 4));
  CHECK(cudaMalloc(&hammers, kMaxSm));
  CHECK(cudaMemcpy(hammers, on.data(), kMaxSm, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&bench.sink, kMaxSm * 4));
  bench.buffer = buffer;
  bench.hammers = hammers;
  bench.blocks = sms * 2;  // 16 warps a SM, 16 loads in flight a warp
  CHECK(cudaEventCreate(&bench.start));
  CHECK(cudaEventCreate(&bench.stop));
  bench.time_us(0, 0);  // warm-up: the lines enter the L2
  std::printf("kind,a,b,us,ratio\n");
  std::vector<double> one;
  for (unsigned a = 0; a < std::min(lines, 16u); ++a) one.push_back(bench.time_us(a, a));
  std::vector<double> sorted = one;
  std::sort(sorted.begin(), sorted.end());
  const double ref = sorted[sorted.size() / 2];
  for (unsigned a = 0; a < one.size(); ++a)
    std::printf("one,%u,%u,%.2f,%.3f\n", a, a, one[a], one[a] / ref);
  std::vector<unsigned> reps, cls(lines);
  for (unsigned line = 0; line < lines; ++line) {
    cls[line] = reps.size();
    for (unsigned c = 0; c < reps.size(); ++c) {
      const double us = bench.time_us(reps[c], line);
      std::printf("pair,%u,%u,%.2f,%.3f\n", reps[c], line, us, us / ref);
      if (us / ref >= kSameShare) {
        cls[line] = c;
        break;
      }
    }
    if (cls[line] == reps.size()) reps.push_back(line);
    if (reps.size() > kMaxClasses) {
      std::fprintf(stderr, "more than %zu classes by line %u: stopped\n", kMaxClasses, line);
      return 3;
    }
  }
  for (unsigned line = 0; line < lines; ++line) std::printf("class,%u,%u\n", line, cls[line]);
  std::fprintf(stderr, "%zu classes over %u lines\n", reps.size(), lines);
  return 0;
}
