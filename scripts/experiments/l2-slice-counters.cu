// Which L2 slices lines share, for a profiler to read (scripts/l2_slice_counters.py drives it under
// Nsight Compute). Each launch is one thread sending weighted reductions (`red.global.add`, done
// at the line's L2 slice, never merged in L1) to a list of lines: WEIGHT reductions to each LINE.
// The per-slice maximum of lts__t_requests_srcunit_tex_op_red then reads the heaviest slice's
// total, from which the driver decodes which lines share a slice. A ground truth for the slice
// probe, not a method of gputopo.
//   nvcc -std=c++17 -O3 -arch=sm_90 -o l2-slice-counters l2-slice-counters.cu
//   ./l2-slice-counters PLAN_FILE
// PLAN_FILE: one launch a row, "LINE:WEIGHT LINE:WEIGHT ..." (128 B lines of a 64 MiB buffer).
// Prints the buffer's address, then "launch,reductions" rows.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_check.cuh"

constexpr size_t kBufferBytes = size_t{64} << 20;
constexpr unsigned kLineWords = 32;

__global__ void reduce(unsigned* buffer, const uint2* plan, int items) {
  for (int i = 0; i < items; ++i) {
    unsigned* line = buffer + size_t{plan[i].x} * kLineWords;
    for (unsigned k = 0; k < plan[i].y; ++k)
      asm volatile("red.global.add.u32 [%0], 1;" ::"l"(line) : "memory");
  }
}

std::vector<std::vector<uint2>> read_plan(const char* path) {
  std::vector<std::vector<uint2>> plan;
  std::ifstream in(path);
  for (std::string row; std::getline(in, row);) {
    std::vector<uint2> launch;
    std::istringstream items(row);
    for (std::string item; items >> item;) {
      unsigned line = 0, weight = 0;
      if (std::sscanf(item.c_str(), "%u:%u", &line, &weight) == 2 && line < kBufferBytes / 128)
        launch.push_back({line, weight});
    }
    if (!launch.empty()) plan.push_back(launch);
  }
  return plan;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PLAN_FILE\n", argv[0]);
    return 2;
  }
  const auto plan = read_plan(argv[1]);
  unsigned* buffer = nullptr;
  uint2* items = nullptr;
  CHECK(cudaMalloc(&buffer, kBufferBytes));
  CHECK(cudaMemset(buffer, 0, kBufferBytes));
  std::printf("buffer,%p\n", static_cast<void*>(buffer));
  for (size_t i = 0; i < plan.size(); ++i) {
    CHECK(cudaMalloc(&items, plan[i].size() * sizeof(uint2)));
    CHECK(
        cudaMemcpy(items, plan[i].data(), plan[i].size() * sizeof(uint2), cudaMemcpyHostToDevice));
    reduce<<<1, 1>>>(buffer, items, static_cast<int>(plan[i].size()));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(items));
    unsigned total = 0;
    for (const auto& item : plan[i]) total += item.y;
    std::printf("%zu,%u\n", i, total);
  }
  return 0;
}
