// Which concurrent chases move an SM's L1 misses: one thread a chosen SM chases its own array
// through the L1 (ld.global.ca, 32 B stride, one warm pass, then 2048 timed loads), every chosen
// SM at once in one launch, for array sizes around the L1's capacity. Sets of SMs: SM 0 alone,
// both SMs of TPC 0, one SM of each of 8 TPCs in one GPC (every 16th SM on Hopper) or in 8 GPCs
// (SMs 0, 2, .., 14), one SM a TPC, and every SM.
//   nvcc -std=c++17 -O3 -arch=sm_90 -o l1-concurrency l1-concurrency.cu
//   ./l1-concurrency > table.csv
// Prints "variant,set,sms,kib,region,sm0_miss_pct,mean_miss_pct" rows (variant bits below); a load
// over 100 cycles is a miss.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_check.cuh"

namespace {

constexpr int kTimedLoads = 2048;
constexpr unsigned kMissCycles = 100;
constexpr std::uint32_t kStrideWords = 8;  // 32 B
constexpr std::size_t kSlotBytes = std::size_t{2} << 20;
constexpr int kRegions = 2;

__device__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ std::uint32_t load_ca(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Variant bits: kAllWarm, the block's threads load every element once in parallel as the warm-up
// (else thread 0 follows the chain once); kRecords, each load's cycles go to shared memory and
// out to global memory (st.global.cg) every 256 loads, as gputopo's chase did; kNoAllocate, the
// same with st.global.L1::no_allocate; kAfter, all cycles kept in shared memory and copied out
// after the chase.
constexpr int kAllWarm = 1, kRecords = 2, kNoAllocate = 4, kAfter = 8;

__device__ void store_no_allocate(std::uint32_t* p, std::uint32_t v) {
  asm volatile("st.global.L1::no_allocate.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Block b's thread 0 claims its SM if the SM is chosen and unclaimed; the claimant chases
// slot[sm].
__global__ void chase(const std::uint32_t* base, std::size_t slot_words, const int* chosen,
                      int* claimed, std::uint32_t words, unsigned* misses, int variant,
                      std::uint32_t* records) {
  volatile __shared__ std::uint32_t sink;
  __shared__ int mine;
  __shared__ std::uint32_t s_cycles[kTimedLoads];
  const unsigned sm = smid();
  if (threadIdx.x == 0) mine = chosen[sm] && atomicCAS(&claimed[sm], 0, 1) == 0;
  __syncthreads();
  if (!mine) return;
  const std::uint32_t* a = base + sm * slot_words;
  std::uint32_t j = 0;
  if (variant & kAllWarm) {
    std::uint32_t sum = 0;
    for (std::uint32_t k = threadIdx.x; k < words / kStrideWords; k += blockDim.x)
      sum += load_ca(a + k * kStrideWords);
    if (sum == 0xffffffffu) sink = sum;
    __syncthreads();
    if (threadIdx.x != 0) return;
  } else {
    if (threadIdx.x != 0) return;
    for (std::uint32_t i = 0; i < words / kStrideWords; ++i) j = load_ca(a + j);
  }
  unsigned miss = 0;
  for (int i = 0; i < kTimedLoads; ++i) {
    const long long t0 = clock64();
    j = load_ca(a + j);
    sink = j;  // the clock is read once the load has returned
    const long long t1 = clock64();
    const auto c = static_cast<unsigned>(t1 - t0);
    miss += c > kMissCycles;
    if (variant & kAfter) s_cycles[i] = c;
    if (variant & (kRecords | kNoAllocate)) {
      s_cycles[i % 256] = c;
      if (i % 256 == 255)
        for (int k = 0; k < 256; ++k) {
          std::uint32_t* out = records + sm * kTimedLoads + i - 255 + k;
          if (variant & kRecords)
            __stcg(out, s_cycles[k]);
          else
            store_no_allocate(out, s_cycles[k]);
        }
    }
  }
  if (variant & kAfter)
    for (int k = 0; k < kTimedLoads; ++k) __stcg(records + sm * kTimedLoads + k, s_cycles[k]);
  misses[sm] = miss + (sink == 0xffffffffu);
}

__global__ void link(std::uint32_t* base, std::size_t slot_words, std::uint32_t words,
                     std::uint32_t offset_words, int sms) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const std::size_t per = words / kStrideWords;
  if (i >= per * sms) return;
  const std::size_t sm = i / per, k = i % per;
  std::uint32_t* a = base + sm * slot_words + offset_words;
  a[k * kStrideWords] = static_cast<std::uint32_t>(((k + 1) % per) * kStrideWords);
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const std::size_t slot_words = kSlotBytes / 4;
  std::uint32_t* base = nullptr;
  CHECK(cudaMalloc(&base, kSlotBytes * sms));
  int *chosen = nullptr, *claimed = nullptr;
  unsigned* misses = nullptr;
  std::uint32_t* records = nullptr;
  CHECK(cudaMalloc(&records, std::size_t{kTimedLoads} * 4 * sms));
  CHECK(cudaMalloc(&chosen, sms * sizeof(int)));
  CHECK(cudaMalloc(&claimed, sms * sizeof(int)));
  CHECK(cudaMalloc(&misses, sms * sizeof(unsigned)));
  CHECK(cudaFuncSetAttribute(chase, cudaFuncAttributePreferredSharedMemoryCarveout, 0));

  struct Set {
    std::string name;
    std::vector<int> sms;
  };
  std::vector<Set> sets = {{"sm0", {0}}, {"tpc0", {0, 1}}, {"gpc-8tpc", {}},
                           {"8gpc", {}}, {"per-tpc", {}},  {"all", {}}};
  for (int s = 0; s < sms; s += 16) sets[2].sms.push_back(s);
  for (int s = 0; s < 16 && s < sms; s += 2) sets[3].sms.push_back(s);
  for (int s = 0; s < sms; s += 2) sets[4].sms.push_back(s);
  for (int s = 0; s < sms; ++s) sets[5].sms.push_back(s);

  std::printf("variant,set,sms,kib,region,sm0_miss_pct,mean_miss_pct\n");
  for (const int variant : {0, kRecords, kNoAllocate, kAfter})
    for (int region = 0; region < kRegions; ++region)
      for (std::uint32_t kib = 196; kib <= 256; kib += 4) {
        const std::uint32_t words = kib * 256;
        const std::uint32_t offset = region * 64 * 1024 / 4;  // each region 64 KiB further on
        const std::size_t threads = std::size_t{words / kStrideWords} * sms;
        link<<<static_cast<unsigned>((threads + 255) / 256), 256>>>(base, slot_words, words, offset,
                                                                    sms);
        CHECK(cudaGetLastError());
        for (const auto& set : sets) {
          if (set.name != "sm0" && set.name != "all") continue;
          std::vector<int> on(sms, 0);
          for (const int s : set.sms) on[s] = 1;
          CHECK(cudaMemcpy(chosen, on.data(), sms * sizeof(int), cudaMemcpyHostToDevice));
          CHECK(cudaMemset(claimed, 0, sms * sizeof(int)));
          CHECK(cudaMemset(misses, 0xff, sms * sizeof(unsigned)));
          const unsigned threads = (variant & kAllWarm) ? 1024 : 32;
          chase<<<sms * 2, threads>>>(base + offset, slot_words, chosen, claimed, words, misses,
                                      variant, records);
          CHECK(cudaDeviceSynchronize());
          std::vector<unsigned> m(sms);
          CHECK(cudaMemcpy(m.data(), misses, sms * sizeof(unsigned), cudaMemcpyDeviceToHost));
          double sum = 0;
          int n = 0;
          for (const int s : set.sms)
            if (m[s] != 0xffffffffu) {
              sum += m[s];
              ++n;
            }
          const double sm0 = m[0] == 0xffffffffu ? -1 : 100.0 * m[0] / kTimedLoads;
          std::printf("%d,%s,%d,%u,%d,%.2f,%.2f\n", variant, set.name.c_str(), n, kib, region, sm0,
                      n ? 100.0 * sum / n / kTimedLoads : -1);
        }
      }
  return 0;
}
