// A stand-alone experiment behind gputopo's constant/instruction-cache sharing probe
// (docs/compute.md), not part of the tool: one warp loops over a chase of F bytes of constant
// memory (one load every STRIDE bytes) and a straight body of C bytes of FFMAs. Where the constant
// L1.5 is the instruction cache's level, F + C past its size makes both miss.
// Build here:
//   nvcc -std=c++17 -O3 -arch=sm_90 -cudart static -o const-icache const-icache.cu -lcuda
// Output of 2026-11-26 on an H100: docs/results/h100/compute/const-icache.txt.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

std::string ptx_for(unsigned instructions) {
  std::string p = ".version 8.0\n.target sm_90\n.address_size 64\n";
  p += ".const .align 4 .b32 tab[16384];\n";
  p += ".visible .entry k(.param .u64 p_out, .param .u32 p_trips, .param .u32 p_loads, "
       ".param .u32 p_wrap, .param .u32 p_stride, .param .f32 p_f1, .param .f32 p_f2)\n{\n"
       ".reg .pred %p, %q;\n.reg .b32 %trip, %trips, %loads, %wrap, %stride, %k, %a, %v;\n"
       ".reg .b64 %out, %t0, %t1, %base, %ra;\n.reg .f32 %f1, %f2, %sum, %x<8>;\n"
       "ld.param.u64 %out, [p_out];\ncvta.to.global.u64 %out, %out;\n"
       "ld.param.u32 %trips, [p_trips];\nld.param.u32 %loads, [p_loads];\n"
       "ld.param.u32 %wrap, [p_wrap];\nld.param.u32 %stride, [p_stride];\n"
       "ld.param.f32 %f1, [p_f1];\nld.param.f32 %f2, [p_f2];\nmov.u64 %base, tab;\n";
  for (int c = 0; c < 8; ++c)
    p += "mov.f32 %x" + std::to_string(c) + ", 0f3F80000" + std::to_string(c) + ";\n";
  p += "mov.u32 %a, 0;\nmov.u32 %trip, 0;\nmov.u64 %t0, %clock64;\nLOOP:\n"
       "mov.u32 %k, 0;\nsetp.eq.u32 %q, %loads, 0;\n@%q bra BODY;\nCHASE:\n"
       "cvt.u64.u32 %ra, %a;\nadd.u64 %ra, %base, %ra;\nld.const.u32 %v, [%ra];\n"
       "add.u32 %a, %a, %v;\nadd.u32 %a, %a, %stride;\nsetp.ge.u32 %q, %a, %wrap;\n"
       "selp.u32 %a, 0, %a, %q;\n"
       "add.u32 %k, %k, 1;\nsetp.lt.u32 %q, %k, %loads;\n@%q bra CHASE;\nBODY:\n";
  for (unsigned i = 0; i < instructions; ++i) {
    const std::string x = "%x" + std::to_string(i % 8);
    p += "fma.rn.f32 " + x + ", " + x + ", %f1, %f2;\n";
  }
  p += "add.u32 %trip, %trip, 1;\nsetp.lt.u32 %p, %trip, %trips;\n@%p bra LOOP;\n"
       "mov.u64 %t1, %clock64;\nadd.f32 %sum, %x0, %x1;\n";
  for (int c = 2; c < 8; ++c) p += "add.f32 %sum, %sum, %x" + std::to_string(c) + ";\n";
  p += "sub.u64 %t1, %t1, %t0;\nst.global.u64 [%out], %t1;\nst.global.f32 [%out+8], %sum;\n"
       "st.global.u32 [%out+12], %a;\nret;\n}\n";
  return p;
}

struct Kernel {
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
};

Kernel load(unsigned instructions) {
  Kernel k;
  const std::string ptx = ptx_for(instructions);
  if (cuModuleLoadData(&k.module, ptx.c_str()) != CUDA_SUCCESS ||
      cuModuleGetFunction(&k.fn, k.module, "k") != CUDA_SUCCESS) {
    std::fprintf(stderr, "load failed for %u instructions\n", instructions);
    std::exit(1);
  }
  return k;
}

double cycles(const Kernel& k, unsigned trips, unsigned loads, unsigned wrap, unsigned stride,
              void* out) {
  float f1 = 1.0f, f2 = 0.5f;
  CUdeviceptr o = reinterpret_cast<CUdeviceptr>(out);
  void* params[] = {&o, &trips, &loads, &wrap, &stride, &f1, &f2};
  cuLaunchKernel(k.fn, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr);
  cudaDeviceSynchronize();
  std::uint64_t t = 0;
  cudaMemcpy(&t, out, 8, cudaMemcpyDeviceToHost);
  return static_cast<double>(t);
}

// Cycles per pass: the slope between 2 and 8 trips, the median of 5.
double per_pass(const Kernel& k, unsigned f_bytes, unsigned stride, void* out) {
  const unsigned loads = f_bytes / stride;
  const unsigned wrap = f_bytes;  // the chase wraps to 0 here
  std::vector<double> v;
  for (int r = 0; r < 5; ++r)
    v.push_back((cycles(k, 8, loads, wrap, stride, out) - cycles(k, 2, loads, wrap, stride, out)) /
                6);
  std::sort(v.begin(), v.end());
  return v[2];
}

}  // namespace

int main() {
  cudaFree(nullptr);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device %s\n", prop.name);
  void* out = nullptr;
  cudaMalloc(&out, 64);
  const unsigned code_kib[] = {0, 16, 32, 64, 80, 96, 112, 128, 144, 160, 192, 256};
  const unsigned f_kib[] = {0, 4, 8, 16, 24, 32, 40, 48, 56, 64};
  for (unsigned stride : {256u, 64u}) {
    std::printf("== stride %u B: cycles per pass (chase F KiB of constants, then C KiB of code)\n",
                stride);
    std::printf("%8s", "C\\F");
    for (unsigned f : f_kib) std::printf("%9u", f);
    std::printf("   | extra cycles per constant load at each F over code-alone + chase-alone\n");
    std::vector<double> chase_alone;
    for (unsigned c : code_kib) {
      const Kernel k = load(c == 0 ? 8 : c * 1024 / 16);
      std::vector<double> row;
      for (unsigned f : f_kib) row.push_back(per_pass(k, f * 1024, stride, out));
      if (c == 0) chase_alone = row;
      std::printf("%8u", c);
      for (double t : row) std::printf("%9.0f", t);
      std::printf("   |");
      for (std::size_t j = 1; j < row.size(); ++j) {
        const double extra = row[j] - row[0] - (chase_alone[j] - chase_alone[0]);
        std::printf(" %6.1f", extra / (f_kib[j] * 1024 / stride));
      }
      std::printf("\n");
      cuModuleUnload(k.module);
      if (stride == 64 && c >= 128) break;
    }
  }
  return 0;
}
