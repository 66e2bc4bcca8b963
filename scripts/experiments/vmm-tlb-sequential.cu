// The address-order companion of vmm-tlb.cu (which visits the pages in random order): translation
// seen through a single-thread pointer chase in address order, as gputopo's TLB probe chases,
// over three mappings of device memory:
//   vmm-shuffled  physical chunks of the minimum VMM granularity (2 MiB on Hopper), created one by
//                 one (cuMemCreate) and mapped (cuMemMap) at shuffled positions of one reserved VA
//                 range, so no two neighbouring VA chunks are physically neighbours and the
//                 driver/MMU cannot use pages larger than one chunk;
//   vmm-ordered   the same chunks mapped in creation order (physical contiguity allowed);
//   cudamalloc    one ordinary cudaMalloc buffer.
// For each mapping, stride (64 KiB, 2 MiB, 32 MiB) and footprint (2 MiB up to the maximum), one
// thread chases a ring of `footprint / stride` elements, one element per stride, in address order
// (ld.global.cg, dependent loads, clock64): one full untimed pass, then a timed pass of at least
// 4096 loads. The line of each element is in L2 after the first pass, so the cycles per load are
// the L2 hit latency plus whatever the translation costs. A TLB level shows as a step in
// cycles_per_load when the number of distinct pages touched (`pages` = footprint / max(stride,
// chunk)) passes its entries; with 64 KiB strides several elements share one page.
//   nvcc -std=c++17 -O3 -arch=sm_90 -o vmm-tlb-sequential \
//     scripts/experiments/vmm-tlb-sequential.cu -lcuda
//   ./vmm-tlb-sequential [max footprint MiB (16384; capped by free memory)] > vmm-tlb-sequential.csv
// Lines starting with '#' describe the device and the mapping; the rest is the CSV table
// mapping,stride,footprint,pages,elements,loads,cycles_per_load (bytes, cycles).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#define CHECK(x)                                                   \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

#define CHECK_CU(x)                                      \
  do {                                                   \
    CUresult cu_rc_ = (x);                               \
    if (cu_rc_ != CUDA_SUCCESS) {                        \
      const char* s = nullptr;                           \
      cuGetErrorString(cu_rc_, &s);                      \
      std::fprintf(stderr, "%s: %s\n", #x, s ? s : "?"); \
      std::exit(1);                                      \
    }                                                    \
  } while (0)

using u64 = unsigned long long;
constexpr u64 kMiB = 1ull << 20;
constexpr u64 kMinTimedLoads = 4096;
constexpr u64 kMaxTimedLoads = 1ull << 16;

__device__ __forceinline__ u64 load_cg(u64 p) {
  u64 v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Element i sits at base + i*stride + a small offset that spreads the elements over L2 sets
// (every element stays inside its own stride, hence its own page).
__host__ __device__ inline u64 element(u64 base, u64 stride, u64 i) {
  u64 spread = stride >= 4096 ? (i % 16) * 256 : 0;
  return base + i * stride + spread;
}

__global__ void build_ring(u64 base, u64 stride, u64 n) {
  u64 i = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  u64 next = element(base, stride, (i + 1) % n);
  *reinterpret_cast<u64*>(element(base, stride, i)) = next;
}

__global__ void chase(u64 start, u64 warm, u64 timed, u64* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  u64 p = start;
  for (u64 i = 0; i < warm; ++i) p = load_cg(p);
  u64 t0 = clock64();
  for (u64 i = 0; i < timed; ++i) p = load_cg(p);
  u64 waited;
  asm volatile("add.u64 %0, %1, 1;" : "=l"(waited) : "l"(p));
  u64 t1 = clock64();
  out[0] = t1 - t0 + (waited == 0 ? 1 : 0);
  out[1] = p;
}

// Footprints: every chunk count 1..16, then four steps per octave up to `max_bytes`.
std::vector<u64> footprints(u64 chunk, u64 max_bytes) {
  std::vector<u64> f;
  for (u64 k = 1; k <= 16 && k * chunk <= max_bytes; ++k) f.push_back(k * chunk);
  for (double x = 16.0 * chunk; x <= static_cast<double>(max_bytes); x *= 1.189207115) {
    u64 b = static_cast<u64>(x) / chunk * chunk;
    if (b > f.back()) f.push_back(b);
  }
  if (f.back() < max_bytes) f.push_back(max_bytes / chunk * chunk);
  return f;
}

void sweep(const char* mapping, u64 base, u64 chunk, u64 max_bytes, u64* d_out) {
  for (u64 stride : {64 * 1024ull, 2 * kMiB, 32 * kMiB}) {
    for (u64 fp : footprints(chunk, max_bytes)) {
      if (fp < stride) continue;
      u64 n = fp / stride;
      build_ring<<<static_cast<unsigned>((n + 255) / 256), 256>>>(base, stride, n);
      CHECK(cudaGetLastError());
      u64 timed = std::min(std::max(n, kMinTimedLoads), kMaxTimedLoads);
      chase<<<1, 32>>>(element(base, stride, 0), n, timed, d_out);
      CHECK(cudaGetLastError());
      u64 got[2];
      CHECK(cudaMemcpy(got, d_out, sizeof(got), cudaMemcpyDeviceToHost));
      u64 pages = fp / std::max(stride, chunk);
      std::printf("%s,%llu,%llu,%llu,%llu,%llu,%.2f\n", mapping, stride, fp, pages, n, timed,
                  static_cast<double>(got[0]) / static_cast<double>(timed));
      std::fflush(stdout);
    }
  }
}

struct VmmRange {
  CUdeviceptr base = 0;
  u64 bytes = 0;
  u64 chunk = 0;
  std::vector<CUmemGenericAllocationHandle> handles;
};

VmmRange map_vmm(int dev, u64 max_bytes, bool shuffled) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t gran = 0;
  CHECK_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  VmmRange r;
  r.chunk = gran;
  u64 count = max_bytes / gran;
  r.bytes = count * gran;
  CHECK_CU(cuMemAddressReserve(&r.base, r.bytes, 32 * kMiB, 0, 0));
  r.handles.resize(count);
  for (u64 i = 0; i < count; ++i) CHECK_CU(cuMemCreate(&r.handles[i], gran, &prop, 0));
  std::vector<u64> slot(count);
  std::iota(slot.begin(), slot.end(), 0);
  if (shuffled) std::shuffle(slot.begin(), slot.end(), std::mt19937_64(12345));
  for (u64 i = 0; i < count; ++i)
    CHECK_CU(cuMemMap(r.base + slot[i] * gran, gran, 0, r.handles[i], 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK_CU(cuMemSetAccess(r.base, r.bytes, &access, 1));
  std::printf("# %s: %llu chunks of %llu B (minimum granularity) at VA 0x%llx..0x%llx\n",
              shuffled ? "vmm-shuffled" : "vmm-ordered", count, static_cast<u64>(gran),
              static_cast<u64>(r.base), static_cast<u64>(r.base + r.bytes));
  return r;
}

void unmap_vmm(VmmRange& r) {
  CHECK_CU(cuMemUnmap(r.base, r.bytes));
  for (auto h : r.handles) CHECK_CU(cuMemRelease(h));
  CHECK_CU(cuMemAddressFree(r.base, r.bytes));
}

int main(int argc, char** argv) {
  auto t_start = std::chrono::steady_clock::now();
  u64 want = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 16384) * kMiB;
  int dev = 0;
  CHECK(cudaSetDevice(dev));
  CHECK(cudaFree(nullptr));  // creates the primary context, which the driver API calls use
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  size_t free_b = 0, total_b = 0;
  CHECK(cudaMemGetInfo(&free_b, &total_b));
  u64 max_bytes = std::min<u64>(want, (free_b - free_b / 8) / (32 * kMiB) * (32 * kMiB));
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
  std::printf("# device %s, sm_%d%d, %d SMs, clock %d MHz, memory %llu MiB total, %llu MiB free\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1000,
              static_cast<u64>(total_b) / kMiB, static_cast<u64>(free_b) / kMiB);
  std::printf("# max footprint %llu MiB; timed loads per point: elements clamped to [%llu, %llu]\n",
              max_bytes / kMiB, kMinTimedLoads, kMaxTimedLoads);
  std::printf("mapping,stride,footprint,pages,elements,loads,cycles_per_load\n");
  u64* d_out;
  CHECK(cudaMalloc(&d_out, 2 * sizeof(u64)));

  for (bool shuffled : {true, false}) {
    VmmRange r = map_vmm(dev, max_bytes, shuffled);
    sweep(shuffled ? "vmm-shuffled" : "vmm-ordered", r.base, r.chunk, r.bytes, d_out);
    CHECK(cudaDeviceSynchronize());
    unmap_vmm(r);
  }
  void* buf = nullptr;
  CHECK(cudaMalloc(&buf, max_bytes));
  std::printf("# cudamalloc: one buffer of %llu B at VA 0x%llx\n", max_bytes,
              static_cast<u64>(reinterpret_cast<uintptr_t>(buf)));
  sweep("cudamalloc", reinterpret_cast<u64>(buf), 2 * kMiB, max_bytes, d_out);
  CHECK(cudaFree(buf));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  std::printf("# done in %.1f s\n", secs);
  return 0;
}
