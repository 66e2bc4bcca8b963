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
#include "reduction_set.cuh"

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 8;
  Hammer hammer;
  int test = 0;
  const auto seconds = [&](const std::vector<int>& members) {
    const unsigned long long ns =
        hammer.ns(std::vector<unsigned>(members.begin(), members.end()), rounds);
    std::printf("test,%d,%llu", test++, ns);
    for (const int m : members) std::printf(",%d", m);
    std::printf("\n");
    return static_cast<double>(ns) * 1e-9;
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
