// Translation with and without large pages: a dependent chase, one load per stride, over
// footprints up to most of the free memory, on an ordinary cudaMalloc buffer and on memory mapped
// with the virtual memory management API in chunks of the minimum granularity placed in shuffled
// order, so that neither physical contiguity nor alignment lets pages coalesce.
//   nvcc -std=c++17 -O3 -arch=sm_90 -o vmm-tlb vmm-tlb.cu -lcuda
//   ./vmm-tlb [max GiB (64)] [both|vmm|malloc (both)] [strides in MiB, e.g. 16,32,64] > table.csv
// One mapping alone takes up to 9/10 of the free memory, both at once under 2/5 each.
// Prints "mapping,stride,footprint,pages,cycles_per_load" rows (pages: strides in the footprint).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cuda_check.cuh"

// Writes a cyclic chain: element at offset k*stride holds the offset of the next, in a random
// order of the pages so that no prefetcher follows it.
__global__ void link(std::uint64_t* base, const std::uint64_t* order, std::uint64_t n,
                     std::uint64_t stride_words) {
  std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  base[order[i] * stride_words] = order[(i + 1) % n] * stride_words;
}

__global__ void chase(const std::uint64_t* base, std::uint64_t loads, std::uint64_t* out) {
  std::uint64_t j = 0;
  for (std::uint64_t i = 0; i < loads; ++i) {  // warm: one pass fills what can be filled
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(j) : "l"(base + j));
  }
  long long t0 = clock64();
  for (std::uint64_t i = 0; i < loads; ++i) {
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(j) : "l"(base + j));
  }
  std::uint64_t waited;
  asm volatile("add.u64 %0, %1, 1;" : "=l"(waited) : "l"(j));
  long long t1 = clock64();
  out[0] = static_cast<std::uint64_t>(t1 - t0);
  out[1] = waited;
}

double cycles_per_load(std::uint64_t* base, std::uint64_t footprint, std::uint64_t stride,
                       std::uint64_t* d_order, std::uint64_t* d_out) {
  const std::uint64_t n = footprint / stride;
  std::vector<std::uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(n * 7 + stride));
  CHECK(cudaMemcpy(d_order, order.data(), n * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  link<<<static_cast<unsigned>((n + 255) / 256), 256>>>(base, d_order, n, stride / 8);
  CHECK(cudaDeviceSynchronize());
  const std::uint64_t loads = std::max<std::uint64_t>(n, 2048);
  chase<<<1, 1>>>(base, loads, d_out);
  CHECK(cudaDeviceSynchronize());
  std::uint64_t out[2];
  CHECK(cudaMemcpy(out, d_out, sizeof(out), cudaMemcpyDeviceToHost));
  return static_cast<double>(out[0]) / static_cast<double>(loads);
}

std::vector<std::uint64_t> g_strides = {std::uint64_t{64} << 10, std::uint64_t{2} << 20,
                                        std::uint64_t{16} << 20, std::uint64_t{32} << 20};

void sweep(const char* mapping, std::uint64_t* base, std::uint64_t bytes, std::uint64_t* d_order,
           std::uint64_t* d_out) {
  for (std::uint64_t stride : g_strides) {
    for (std::uint64_t f = 2 * stride; f <= bytes; f = f * 5 / 4 / stride * stride + stride) {
      if (f / stride > (std::uint64_t{1} << 20)) break;
      const double c = cycles_per_load(base, f, stride, d_order, d_out);
      std::printf("%s,%llu,%llu,%llu,%.1f\n", mapping, (unsigned long long)stride,
                  (unsigned long long)f, (unsigned long long)(f / stride), c);
      std::fflush(stdout);
    }
  }
}

// VMM: chunks created one by one, mapped at shuffled positions of one reserved range.
void vmm_sweep(std::uint64_t bytes, std::size_t gran, const CUmemAllocationProp& prop,
               std::uint64_t* d_order, std::uint64_t* d_out) {
  const std::uint64_t chunks = bytes / gran;
  CUdeviceptr va;
  CU(cuMemAddressReserve(&va, bytes, gran, 0, 0));
  std::vector<CUmemGenericAllocationHandle> handles(chunks);
  for (auto& h : handles) CU(cuMemCreate(&h, gran, &prop, 0));
  std::vector<std::uint64_t> slot(chunks);
  std::iota(slot.begin(), slot.end(), 0);
  std::shuffle(slot.begin(), slot.end(), std::mt19937_64(12345));
  for (std::uint64_t c = 0; c < chunks; ++c)
    CU(cuMemMap(va + slot[c] * gran, gran, 0, handles[c], 0));
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(va, bytes, &access, 1));
  sweep("vmm-shuffled-2MiB", reinterpret_cast<std::uint64_t*>(va), bytes, d_order, d_out);
  CU(cuMemUnmap(va, bytes));
  for (auto& h : handles) CU(cuMemRelease(h));
  CU(cuMemAddressFree(va, bytes));
}

int main(int argc, char** argv) {
  const std::uint64_t max_gib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 64;
  const std::string which = argc > 2 ? argv[2] : "both";
  const bool vmm = which != "malloc", plain_too = which != "vmm";
  if (argc > 3) {  // strides in MiB, comma-separated
    g_strides.clear();
    for (const char* p = argv[3]; *p;) {
      char* end = nullptr;
      g_strides.push_back(std::strtoull(p, &end, 10) << 20);
      p = *end == ',' ? end + 1 : end;
    }
  }
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  std::size_t free_b = 0, total_b = 0;
  CHECK(cudaMemGetInfo(&free_b, &total_b));
  const std::uint64_t share = vmm && plain_too ? free_b * 2 / 5 : free_b / 10 * 9;
  std::uint64_t bytes = std::min<std::uint64_t>(max_gib << 30, share);

  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  std::size_t gran = 0;
  CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  bytes = bytes / (std::uint64_t{32} << 20) * (std::uint64_t{32} << 20);
  const std::uint64_t chunks = bytes / gran;
  std::fprintf(stderr, "free %zu MiB, granularity %zu KiB, each mapping %llu MiB (%llu chunks)\n",
               free_b >> 20, gran >> 10, (unsigned long long)(bytes >> 20),
               (unsigned long long)chunks);

  std::uint64_t* d_order;
  std::uint64_t* d_out;
  CHECK(cudaMalloc(&d_order, (std::uint64_t{1} << 20) * 8 + 64));
  CHECK(cudaMalloc(&d_out, 64));

  std::printf("mapping,stride,footprint,pages,cycles_per_load\n");
  if (vmm) vmm_sweep(bytes, gran, prop, d_order, d_out);
  if (plain_too) {
    std::uint64_t* plain;
    CHECK(cudaMalloc(&plain, bytes));
    sweep("cudaMalloc", plain, bytes, d_order, d_out);
    CHECK(cudaFree(plain));
  }
  return 0;
}
