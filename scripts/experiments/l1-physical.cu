// Hopper's L1 with the physical placement under control: 16 chunks of the virtual memory
// management API's granularity (2 MiB), each mapped at two virtual places, and one thread chasing
// arrays in them through the L1 (ld.global.ca, carve-out preference 0, two warm passes, then at
// least 1024 timed loads in a random cyclic order; a load over 100 cycles is a miss).
//   nvcc -std=c++17 -O3 -arch=sm_90 -o l1-physical l1-physical.cu -lcuda
//   ./l1-physical placement|carve > table.csv
// Prints "test,chunk,slot,timedSlot,stride,lines,loads,misses,dynamicShared" rows. Both modes
// begin with
// - alias: warm through one virtual place, time through another: the same chunk mapped again
//   (a cache tagged by physical address hits), itself (hits) or another chunk (misses).
// placement:
// - chunks: contiguous 128 B lines around the L1's capacity in chunks 0 and 5, each at both of
//   its virtual places: whether the capacity depends on the chunk or on the virtual place;
// - strides: power-of-two strides 128 B to 1 MiB inside one chunk, for two chunks;
// - span: strides 2 KiB to 1 MiB over up to all 16 chunks, mapped one after another;
// - random, random-contiguous: lines drawn at random from the 16 chunks (line 0 and n - 1 others,
//   three draws) against as many contiguous lines: a set index shows as earlier misses for random
//   lines, which load some sets more than others.
// carve:
// - carve: contiguous lines with 0 to 120 KiB of dynamic shared memory a launch besides the
//   chase's 8 B (the carve-out);
// - random, random-near: random lines from the 16 chunks and from the first 4096 lines, with 0 and
//   24 KiB of shared memory;
// - span: strides 256 B, 1 KiB, 4 KiB, 16 KiB and 64 KiB from 1024 to 2816 lines.
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

namespace {

constexpr int kChunks = 16;
constexpr int kSlots = 2 * kChunks;  // chunk c at slot c and again at slot kChunks + c
constexpr unsigned kMissCycles = 100;
constexpr std::uint32_t kLeastTimed = 1024;

__device__ std::uint64_t load_ca(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Element order[i] (at order[i] * stride) holds the word offset of element order[i + 1].
__global__ void link(std::uint64_t* base, const std::uint32_t* order, std::uint32_t n,
                     std::uint64_t stride_words) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) base[order[i] * stride_words] = order[(i + 1) % n] * stride_words;
}

// Two passes through `warm`, then `timed` loads through `time` (the same offsets). Each load's
// value is stored to shared memory before the clock is read again, so the read waits for it (an
// ALU use of the value does not hold the clock read back: the compiler moves it up).
__global__ void chase(const std::uint64_t* warm, const std::uint64_t* time, std::uint32_t n,
                      std::uint32_t timed, unsigned* misses) {
  volatile __shared__ std::uint64_t sink;
  std::uint64_t j = 0;
  for (std::uint32_t i = 0; i < 2 * n; ++i) j = load_ca(warm + j);
  unsigned miss = 0;
  for (std::uint32_t i = 0; i < timed; ++i) {
    const long long t0 = clock64();
    j = load_ca(time + j);
    sink = j;
    const long long t1 = clock64();
    miss += t1 - t0 > kMissCycles ? 1u : 0u;
  }
  *misses = miss;
}

struct Space {
  CUdeviceptr va = 0;
  std::size_t gran = 0;
  std::uint64_t* slot(int s) const { return reinterpret_cast<std::uint64_t*>(va + s * gran); }
};

Space map_chunks() {
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  Space sp;
  CU(cuMemGetAllocationGranularity(&sp.gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CU(cuMemAddressReserve(&sp.va, kSlots * sp.gran, sp.gran, 0, 0));
  for (int c = 0; c < kChunks; ++c) {
    CUmemGenericAllocationHandle h;
    CU(cuMemCreate(&h, sp.gran, &prop, 0));
    CU(cuMemMap(sp.va + c * sp.gran, sp.gran, 0, h, 0));
    CU(cuMemMap(sp.va + (kChunks + c) * sp.gran, sp.gran, 0, h, 0));
  }
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(sp.va, kSlots * sp.gran, &access, 1));
  return sp;
}

class Runner {
 public:
  explicit Runner(const Space& sp) : sp_(sp) {
    CHECK(cudaMalloc(&order_, (sp.gran / 128) * sizeof(std::uint32_t)));
    CHECK(cudaMalloc(&misses_, sizeof(unsigned)));
    CHECK(cudaFuncSetAttribute(chase, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
    CHECK(cudaFuncSetAttribute(chase, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
  }

  // Links n lines at `stride` in slot `slot`: a random cycle, the same for the same seed.
  void link_lines(int slot, std::uint64_t stride, std::uint32_t n, std::uint32_t seed) {
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin() + 1, order.end(), std::mt19937(seed * 7919u + n));
    link_order(slot, stride, order);
  }

  // Links the elements `order` names (the first must be 0, where the chase starts) in that order.
  void link_order(int slot, std::uint64_t stride, const std::vector<std::uint32_t>& order) {
    const auto n = static_cast<std::uint32_t>(order.size());
    CHECK(cudaMemcpy(order_, order.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    link<<<(n + 255) / 256, 256>>>(sp_.slot(slot), order_, n, stride / 8);
    CHECK(cudaDeviceSynchronize());
  }

  // n lines drawn at random (line 0 and n - 1 others) from the first `lines` 128 B lines of the
  // chunks (all where 0), chased in a random order.
  void run_random(std::uint32_t n, std::uint32_t seed, std::uint32_t lines = 0) {
    std::mt19937 rng(seed * 104729u + n);
    if (lines == 0) lines = static_cast<std::uint32_t>(kChunks * sp_.gran / 128);
    std::vector<std::uint32_t> order{0};
    std::vector<bool> taken(lines, false);
    taken[0] = true;
    while (order.size() < n) {
      const std::uint32_t line = rng() % lines;
      if (!taken[line]) order.push_back(line);
      taken[line] = true;
    }
    link_order(0, 128, order);
    time(lines < kChunks * sp_.gran / 128 ? "random-near" : "random", 0, 0, 0, 128, n);
  }

  // Links the lines in `slot`, warms through `warm_slot` (which must hold the same chain), times
  // through `timed_slot`; prints the row.
  void run(const char* test, int slot, int warm_slot, int timed_slot, std::uint64_t stride,
           std::uint32_t n, std::uint32_t seed) {
    link_lines(slot, stride, n, seed);
    time(test, slot, warm_slot, timed_slot, stride, n);
  }

 private:
  void time(const char* test, int slot, int warm_slot, int timed_slot, std::uint64_t stride,
            std::uint32_t n) {
    const std::uint32_t timed = std::max(n, kLeastTimed);
    chase<<<1, 1, shared_>>>(sp_.slot(warm_slot), sp_.slot(timed_slot), n, timed, misses_);
    CHECK(cudaDeviceSynchronize());
    unsigned misses = 0;
    CHECK(cudaMemcpy(&misses, misses_, sizeof(misses), cudaMemcpyDeviceToHost));
    std::printf("%s,%d,%d,%d,%llu,%u,%u,%u,%zu\n", test, slot % kChunks, warm_slot, timed_slot,
                (unsigned long long)stride, n, timed, misses, shared_);
  }

  const Space& sp_;
  std::uint32_t* order_ = nullptr;

 public:
  std::size_t shared_ = 0;  // dynamic shared memory a chase launch asks for

 private:
  unsigned* misses_ = nullptr;
};

// 1..32 lines one by one, then 16 points per doubling up to `most`.
std::vector<std::uint32_t> line_counts(std::uint32_t most) {
  std::vector<std::uint32_t> v;
  for (std::uint32_t n = 1; n <= std::min(most, 32u); ++n) v.push_back(n);
  for (std::uint32_t lo = 32; lo < most; lo *= 2)
    for (std::uint32_t k = 1; k <= 16 && lo + k * lo / 16 <= most; ++k)
      v.push_back(lo + k * lo / 16);
  return v;
}

void placement(Runner& r, const Space& sp) {
  for (int s : {0, 5, kChunks, kChunks + 5})
    for (std::uint32_t n = 1600; n <= 2112; n += 8) r.run("chunks", s, s, s, 128, n, 1);
  for (int c = 0; c < 2; ++c)
    for (std::uint64_t stride = 128; stride <= (std::uint64_t{1} << 20); stride *= 2) {
      const auto most = static_cast<std::uint32_t>(std::min<std::uint64_t>(4096, sp.gran / stride));
      for (std::uint32_t n : line_counts(most)) r.run("strides", c, c, c, stride, n, 1);
    }
  for (std::uint64_t stride = 2048; stride <= (std::uint64_t{1} << 20); stride *= 2) {
    const auto most =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(4096, kChunks * sp.gran / stride));
    for (std::uint32_t n : line_counts(most)) r.run("span", 0, 0, 0, stride, n, 1);
  }
  for (std::uint32_t seed = 1; seed <= 3; ++seed)
    for (std::uint32_t n = 1504; n <= 2624; n += 32) {
      r.run_random(n, seed);
      r.run("random-contiguous", 0, 0, 0, 128, n, seed);
    }
}

void carve(Runner& r, const Space& sp) {
  for (std::size_t kib : {0, 1, 8, 12, 24, 40, 56, 90, 120}) {
    r.shared_ = kib << 10;
    for (std::uint32_t n = 1024; n <= 2816; n += 16) r.run("carve", 0, 0, 0, 128, n, 1);
  }
  for (std::size_t kib : {0, 24}) {
    r.shared_ = kib << 10;
    for (std::uint32_t seed = 1; seed <= 3; ++seed)
      for (std::uint32_t n = 1024; n <= 2816; n += 64) {
        r.run_random(n, seed);
        r.run_random(n, seed, 4096);
      }
  }
  r.shared_ = 0;
  for (std::uint64_t stride = 256; stride <= (std::uint64_t{1} << 16); stride *= 4)
    for (std::uint32_t n = 1024; n <= 2816 && n * stride <= kChunks * sp.gran; n += 32)
      r.run("span", 0, 0, 0, stride, n, 1);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "carve";
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  const Space sp = map_chunks();
  std::fprintf(stderr, "granularity %zu KiB, %d chunks at %d slots\n", sp.gran >> 10, kChunks,
               kSlots);
  Runner r(sp);
  std::printf("test,chunk,slot,timedSlot,stride,lines,loads,misses,dynamicShared\n");
  for (int c = 0; c < 2; ++c) {
    r.link_lines(c + 1, 128, 1024, 1);
    r.run("alias", c, c, kChunks + c, 128, 1024, 1);
    r.run("alias", c, c, c, 128, 1024, 1);
    r.run("alias", c, c + 1, c, 128, 1024, 1);
  }
  if (mode == "placement") placement(r, sp);
  if (mode == "carve") carve(r, sp);
  return 0;
}
