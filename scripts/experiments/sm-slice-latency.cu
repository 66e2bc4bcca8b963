// The L2 hit latency of every SM to many lines: one row per SM, one column per line.
// Lines of one L2 slice share a profile over the SMs; SMs of one GPC share a profile over the
// lines. Columns: LINES consecutive 128 B lines, then one line at each power-of-two offset from
// 128 B up to the buffer (the address bits of the slice hash).
//   nvcc -std=c++17 -O3 -arch=sm_90 -o sm-slice-latency sm-slice-latency.cu
//   ./sm-slice-latency [buffer MiB (1024)] [LINES (1024)] [rotate (0)] > table.csv
// rotate 1: SM s starts its walk over the lines at line s * lines / SMs (and wraps), so the SMs
// do not all read one line at one time and a line's time in the run differs from SM to SM.
// Prints "sm,line,offset,min,median" rows; cycles per load of a chain of 8 `ld.global.cg` to the
// same line (L2 hits), 7 repeats. Every SM measures at once, one thread each.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.cuh"

constexpr int kChain = 8;
constexpr int kRepeats = 7;

__device__ __forceinline__ unsigned load_cg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__global__ void profile(const unsigned* buf, const unsigned long long* offsets, int lines,
                        unsigned* out, int* claimed, int rotate_step) {
  if (threadIdx.x != 0) return;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (atomicCAS(&claimed[sm], 0, 1) != 0) return;
  unsigned v = 0;  // the buffer holds zeros: every load of a chain reads the same line
  for (int i = 0; i < lines; ++i) {
    const int l = static_cast<int>((i + static_cast<long long>(sm) * rotate_step) % lines);
    const unsigned* p = buf + offsets[l] / 4;
    v = load_cg(p + v);
    for (int r = 0; r < kRepeats; ++r) {
      unsigned t0 = clock();
      for (int c = 0; c < kChain; ++c) v = load_cg(p + v);
      unsigned waited;
      asm volatile("add.u32 %0, %1, 1;" : "=r"(waited) : "r"(v));
      unsigned t1 = clock();
      out[(static_cast<size_t>(sm) * lines + l) * kRepeats + r] = t1 - t0 + (waited >> 31);
    }
  }
}

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  size_t bytes = mib << 20;
  const int consecutive = argc > 2 ? std::atoi(argv[2]) : 1024;
  const bool rotate = argc > 3 && std::atoi(argv[3]) != 0;
  int dev = 0, sms = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  std::vector<unsigned long long> offsets;
  for (int i = 0; i < consecutive; ++i) offsets.push_back(static_cast<unsigned long long>(i) * 128);
  for (size_t o = 128; o < bytes; o <<= 1) offsets.push_back(o);
  int lines = static_cast<int>(offsets.size());

  unsigned* buf;
  CHECK(cudaMalloc(&buf, bytes));
  CHECK(cudaMemset(buf, 0, bytes));
  unsigned long long* d_offsets;
  CHECK(cudaMalloc(&d_offsets, offsets.size() * sizeof(unsigned long long)));
  CHECK(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(unsigned long long),
                   cudaMemcpyHostToDevice));
  int max_sm = 1024;
  int* claimed;
  CHECK(cudaMalloc(&claimed, max_sm * sizeof(int)));
  CHECK(cudaMemset(claimed, 0, max_sm * sizeof(int)));
  size_t cells = static_cast<size_t>(max_sm) * lines * kRepeats;
  unsigned* d_out;
  CHECK(cudaMalloc(&d_out, cells * sizeof(unsigned)));
  CHECK(cudaMemset(d_out, 0, cells * sizeof(unsigned)));

  profile<<<sms * 8, 32>>>(buf, d_offsets, lines, d_out, claimed, rotate ? lines / sms : 0);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<int> got(max_sm);
  CHECK(cudaMemcpy(got.data(), claimed, max_sm * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<unsigned> out(cells);
  CHECK(cudaMemcpy(out.data(), d_out, cells * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int seen = 0;
  for (int s = 0; s < max_sm; ++s) seen += got[s];
  std::fprintf(stderr, "SMs %d, measured %d, lines %d, buffer %zu MiB, rotate %d\n", sms, seen,
               lines, mib, rotate ? 1 : 0);
  std::printf("sm,line,offset,min,median\n");
  for (int s = 0; s < max_sm; ++s) {
    if (!got[s]) continue;
    for (int l = 0; l < lines; ++l) {
      std::vector<unsigned> r(out.begin() + (static_cast<size_t>(s) * lines + l) * kRepeats,
                              out.begin() + (static_cast<size_t>(s) * lines + l + 1) * kRepeats);
      std::sort(r.begin(), r.end());
      std::printf("%d,%d,%llu,%.2f,%.2f\n", s, l, offsets[l], r.front() / double(kChain),
                  r[kRepeats / 2] / double(kChain));
    }
  }
  return 0;
}
