// Do L2 slices bound the rate of reductions? Every SM's warps send `red.global.add` to two lines
// a and b in turn, 128 to each a warp (reduction_set.cuh), timed by the kernel, so a profiler
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

#include "reduction_set.cuh"

constexpr int kRounds = 128;

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
  Hammer hammer;
  int launch = 0;
  for (const auto& pair : pairs)
    for (int r = 0; r < repeats; ++r)
      std::printf("%d,%u,%u,%llu\n", launch++, pair.x, pair.y,
                  hammer.ns({pair.x, pair.y}, kRounds));
  return 0;
}
