// The generic fine-grained pointer chase: one kernel template over the load policies of
// chase_loads.cuh, plus the kernels that build chase arrays.
#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/chase_loads.cuh"
#include "device/cuda/device_clock.cuh"
#include "device/cuda/kernels.hpp"
#include "device/requests.hpp"

namespace gputopo::device::cuda {
namespace {

// Loads of one unrolled pass of a chain segment (segments hold whole passes).
constexpr std::uint32_t kSegmentUnroll = kMinSegmentLoads;
constexpr std::uint32_t kOverheadSegments = 8;

template <class Index>
__device__ __forceinline__ void store_shared(Index* p, Index v) {
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  if constexpr (sizeof(Index) == 4)
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(address), "r"(v) : "memory");
  else
    asm volatile("st.shared.u64 [%0], %1;" ::"r"(address), "l"(v) : "memory");
}

// A store that leaves the L1 as it is (st.global.L1::no_allocate), for what a chase writes while
// its array sits in the L1: the warm-up sums and the records. On Hopper a plain or .cg store takes
// L1 space: the records' copies made a chase miss from about 200 KiB of its 240 KiB
// (docs/results/h200/l1-records/).
template <class T>
__device__ __forceinline__ void store_outside_l1(T* p, T v) {
  if constexpr (sizeof(T) == 4)
    asm volatile("st.global.L1::no_allocate.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  else
    asm volatile("st.global.L1::no_allocate.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Thread 0 claims the block's SM; the first block on an SM takes the job placed there, or the
// next job for any SM. Every other block exits, so no SM runs two jobs.
__device__ int claim_job(const ChaseLaunchArgs& args) {
  const int sm = read_smid();
  if (sm < 0 || sm >= kMaxSmid) return -1;
  if (atomicCAS(args.claims + sm, 0U, 1U) != 0U) return -1;
  const int placed = args.sm_to_job[sm];
  if (placed >= 0) return placed;
  const std::uint32_t k = atomicAdd(args.next_unplaced, 1U);
  return k < args.unplaced_count ? args.unplaced[k] : -1;
}

// The shared space chases a copy of its image in dynamic shared memory; a chain-timed copy holds
// the shared-window addresses of the positions in the image.
__device__ void stage_shared(const ChaseArray& a, std::uint32_t* dynamic, bool chain) {
  if (a.space != static_cast<std::uint32_t>(Space::Shared) || a.base == 0) return;
  const auto* image = reinterpret_cast<const std::uint32_t*>(a.base);
  const auto base = static_cast<std::uint32_t>(__cvta_generic_to_shared(dynamic + a.shared_word));
  for (std::uint64_t w = threadIdx.x; w < a.words; w += blockDim.x)
    dynamic[a.shared_word + w] = chain ? base + image[w] * 4 : image[w];
}

// All threads of the block load every chased element, `warmup_passes` times. Their sums go to
// global memory so that the loads cannot be dropped. False once past the deadline.
template <class Index, class Load>
__device__ bool warm_all(const Load& load, const ChaseArray& a, std::uint64_t deadline,
                         std::uint32_t* sink) {
  Index sum = 0;
  bool in_time = true;
  std::uint32_t n = 0;
  for (std::uint32_t p = 0; p < a.warmup_passes && in_time; ++p)
    for (std::uint64_t k = threadIdx.x; k < a.elements; k += blockDim.x) {
      sum += load(static_cast<Index>(k * a.stride_words));
      if ((++n & 4095) == 0 && read_globaltimer() > deadline) {
        in_time = false;
        break;
      }
    }
  store_outside_l1(sink + threadIdx.x, static_cast<std::uint32_t>(sum));
  return in_time;
}

// All threads write every chased element's 32-byte sector once: its link, as the strided fill
// wrote it, and zeros (plain st.global.wb stores, nothing loaded).
template <class Index>
__device__ void store_all(const ChaseArray& a) {
  for (std::uint64_t k = threadIdx.x; k < a.elements; k += blockDim.x) {
    const std::uint64_t link = (k + 1 == a.elements ? 0 : k + 1) * a.stride_words;
    auto* sector = reinterpret_cast<uint4*>(reinterpret_cast<Index*>(a.base) + k * a.stride_words);
    const auto lo = static_cast<unsigned>(link);
    const auto hi = sizeof(Index) == 8 ? static_cast<unsigned>(link >> 32) : 0U;
    __stwb(sector, make_uint4(lo, hi, 0U, 0U));
    __stwb(sector + 1, make_uint4(0U, 0U, 0U, 0U));
  }
}

// One thread follows the chain for `warmup_passes` full cycles; false once past the deadline.
template <class Index, class Load>
__device__ bool chase_passes(const Load& load, const ChaseArray& a, std::uint64_t deadline,
                             std::uint32_t* sink) {
  Index j = 0;
  bool in_time = true;
  for (std::uint32_t p = 0; p < a.warmup_passes && in_time; ++p)
    for (std::uint64_t k = 0; k < a.elements; ++k) {
      j = load(j);
      if ((k & 4095) == 4095 && read_globaltimer() > deadline) {
        in_time = false;
        break;
      }
    }
  store_outside_l1(sink + threadIdx.x, static_cast<std::uint32_t>(j));
  return in_time;
}

// B of an interference pair only warms, so its load is chosen at run time.
__device__ bool warm_dynamic(const ChaseArray& b, std::uint32_t dynamic_base,
                             std::uint64_t deadline, std::uint32_t* sink) {
  using U = std::uint32_t;
  switch (static_cast<Space>(b.space)) {
    case Space::L1:
      return chase_passes<U>(LoadL1::make(b, dynamic_base), b, deadline, sink);
    case Space::L2:
      return chase_passes<U>(LoadL2::make(b, dynamic_base), b, deadline, sink);
    case Space::ReadOnly:
      return chase_passes<U>(LoadReadOnly::make(b, dynamic_base), b, deadline, sink);
    case Space::Texture:
      return chase_passes<U>(LoadTexture::make(b, dynamic_base), b, deadline, sink);
    case Space::Constant:
      return chase_passes<U>(LoadConstant::make(b, dynamic_base), b, deadline, sink);
    case Space::Shared:
      return chase_passes<U>(LoadShared::make(b, dynamic_base), b, deadline, sink);
  }
  return true;
}

// Thread 0 of a two-SM pair waits until the other block moved the hand-over word to `value`;
// false once past the deadline (the other block never came).
__device__ bool await_handoff(std::uint32_t* word, std::uint32_t value, std::uint64_t deadline) {
  while (atomicAdd(word, 0U) < value)
    if (read_globaltimer() > deadline) return false;
  return true;
}

__device__ void hand_over(std::uint32_t* word, std::uint32_t value) {
  __threadfence();
  atomicExch(word, value);
}

// The recorded loads: each between two %clock reads, with a dependent shared store of the loaded
// index before the second read so that the load must have completed. Records are staged in small
// shared buffers and copied out, leaving the L1 as it is, every kRecordChunk loads.
template <class Index, class Load>
__device__ bool timed_chase(const Load& load, const ChaseJob& job, std::uint32_t* s_cycles,
                            Index* s_index, std::uint64_t deadline) {
  auto* cycles_out = reinterpret_cast<std::uint32_t*>(job.cycles_out);
  auto* index_out = reinterpret_cast<Index*>(job.indices_out);
  const std::uint32_t n = job.recorded_loads;
  Index j = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t slot = i % kRecordChunk;
    Index* const record = s_index + slot;
    const auto address = load.address(j);
    pin(address);
    pin(static_cast<std::uint32_t>(__cvta_generic_to_shared(record)));
    const std::uint32_t t0 = read_clock();
    j = load.template load<Index>(address);
    store_shared(record, j);
    const std::uint32_t t1 = read_clock();
    s_cycles[slot] = t1 - t0;
    if (slot == kRecordChunk - 1 || i + 1 == n) {
      const std::uint32_t first = i - slot;
      for (std::uint32_t s = 0; s <= slot; ++s) {
        store_outside_l1(cycles_out + first + s, s_cycles[s]);
        if (index_out != nullptr) store_outside_l1(index_out + first + s, s_index[s]);
      }
      if (read_globaltimer() > deadline) return false;
    }
  }
  return true;
}

// The chain timed as a whole: segments of job.segment_loads dependent loads between two clock
// reads, the last value stored to shared memory before the second read so that it must have
// arrived. The next segment's first load waits for that value, so no load straddles two segments.
// The first kOverheadSegments run the same code with no load: the fewest cycles among them are the
// segment's own (clock reads, store), which the host subtracts; short segments, which keep most
// of them clear of a rare slow load, would otherwise read high.
template <class Load>
__device__ bool timed_segments(const Load& load, ChaseJob& job, std::uint64_t* s_last,
                               std::uint64_t deadline) {
  auto* cycles_out = reinterpret_cast<std::uint32_t*>(job.cycles_out);
  auto v = load.chain_start();
  const std::uint32_t passes = job.segment_loads / kSegmentUnroll;
  const std::uint32_t segments = job.recorded_loads / job.segment_loads + kOverheadSegments;
  std::uint32_t overhead = ~0U;
  for (std::uint32_t s = 0; s < segments; ++s) {
    const std::uint32_t n = s < kOverheadSegments ? 0 : passes;
    const std::uint32_t t0 = read_clock();
#pragma unroll 1
    for (std::uint32_t p = 0; p < n; ++p) {
#pragma unroll
      for (std::uint32_t i = 0; i < kSegmentUnroll; ++i) v = load.chain_next(v);
    }
    store_shared(s_last, static_cast<std::uint64_t>(v));
    const std::uint32_t t1 = read_clock();
    if (s < kOverheadSegments) {
      overhead = min(overhead, t1 - t0);
      continue;
    }
    store_outside_l1(cycles_out + s - kOverheadSegments, t1 - t0);
    if (read_globaltimer() > deadline) return false;
  }
  job.chain_overhead = overhead;
  return true;
}

template <class Load, class Index>
__global__ void __launch_bounds__(kChaseThreads) chase_kernel(ChaseLaunchArgs args) {
  __shared__ int s_job;
  __shared__ std::uint32_t s_late;
  __shared__ std::uint32_t s_cycles[kRecordChunk];
  __shared__ Index s_index[kRecordChunk];
  __shared__ std::uint64_t s_chain_last;
  extern __shared__ std::uint32_t s_dynamic[];
  const std::uint32_t tid = threadIdx.x;
  if (tid == 0) {
    s_job = claim_job(args);
    s_late = 0;
  }
  __syncthreads();
  if (s_job < 0) return;
  ChaseJob& job = args.jobs[s_job];
  const std::uint64_t start_ns = read_globaltimer();
  const std::uint64_t start_clock = read_clock64();
  const std::uint64_t deadline = start_ns + args.deadline_ns;
  const ChaseArray a = job.a;
  const ChaseArray b = job.b;
  stage_shared(a, s_dynamic, job.chain != 0);
  stage_shared(b, s_dynamic, false);
  __syncthreads();
  const auto dynamic_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(s_dynamic));
  const Load load = Load::make(a, dynamic_base);
  const auto mode = static_cast<JobMode>(job.mode);
  std::uint32_t timer = 0;
  if (mode == JobMode::TwoSmsB) {
    std::uint32_t* word = &args.jobs[job.partner].handoff;
    if (tid == 0 && !await_handoff(word, 1, deadline)) s_late = 1;
    __syncthreads();
    const bool warm = s_late == 0 && warm_all<Index>(load, a, deadline, args.sink);
    __syncthreads();
    if (tid != 0) return;
    hand_over(word, 2);
    job.smid = read_smid();
    job.status = static_cast<std::uint32_t>(warm ? JobStatus::Done : JobStatus::TimedOut);
    return;
  }
  if (mode == JobMode::Chase || mode == JobMode::TwoSmsA) {
    const auto warmup = static_cast<Warmup>(a.warmup);
    if (warmup != Warmup::Store && !warm_all<Index>(load, a, deadline, args.sink)) s_late = 1;
    __syncthreads();
    if (warmup != Warmup::Load) {
      store_all<Index>(a);
      __syncthreads();
    }
    if (mode == JobMode::TwoSmsA && tid == 0) {
      hand_over(&job.handoff, 1);
      if (!await_handoff(&job.handoff, 2, deadline)) s_late = 1;
    }
    __syncthreads();
  } else {
    timer = job.thread_a;
    if (tid == job.thread_a && !chase_passes<Index>(load, a, deadline, args.sink)) s_late = 1;
    if (mode == JobMode::TwoThreads) __syncthreads();
    const std::uint32_t warms_b = mode == JobMode::TwoThreads ? job.thread_b : job.thread_a;
    if (tid == warms_b && !warm_dynamic(b, dynamic_base, deadline, args.sink)) s_late = 1;
    __syncthreads();
  }
  if (tid != timer) return;
  job.globaltimer_warm = read_globaltimer();
  bool in_time = s_late == 0;
  if (in_time)
    in_time = job.chain != 0 ? timed_segments(load, job, &s_chain_last, deadline)
                             : timed_chase<Index>(load, job, s_cycles, s_index, deadline);
  job.smid = read_smid();
  job.globaltimer_start = start_ns;
  job.globaltimer_end = read_globaltimer();
  job.clock_start = start_clock;
  job.clock_end = read_clock64();
  __threadfence();
  job.status = static_cast<std::uint32_t>(in_time ? JobStatus::Done : JobStatus::TimedOut);
}

template <class Load, class Index>
cudaError_t launch_variant(const ChaseLaunchArgs& args, std::uint32_t blocks,
                           const ChaseKernelConfig& config, cudaStream_t s) {
  auto* kernel = chase_kernel<Load, Index>;
  cudaError_t rc = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        config.carveout_percent);
  if (rc != cudaSuccess) return rc;
  rc = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            static_cast<int>(config.dynamic_shared_bytes));
  if (rc != cudaSuccess) return rc;
  kernel<<<blocks, kChaseThreads, config.dynamic_shared_bytes, s>>>(args);
  return cudaGetLastError();
}

template <class Load, class Index>
cudaError_t static_shared(std::size_t* bytes) {
  cudaFuncAttributes attributes{};
  const cudaError_t rc = cudaFuncGetAttributes(&attributes, chase_kernel<Load, Index>);
  *bytes = attributes.sharedSizeBytes;
  return rc;
}

// Calls f.template operator()<Load, Index>() for the variant's kernel.
template <class F>
cudaError_t dispatch(ChaseVariant v, bool wide, F&& f) {
  using U = std::uint32_t;
  switch (v) {
    case ChaseVariant::L1:
      return wide ? f.template operator()<LoadL1, Wide>() : f.template operator()<LoadL1, U>();
    case ChaseVariant::L2:
      return wide ? f.template operator()<LoadL2, Wide>() : f.template operator()<LoadL2, U>();
    case ChaseVariant::ReadOnly:
      return wide ? f.template operator()<LoadReadOnly, Wide>()
                  : f.template operator()<LoadReadOnly, U>();
    case ChaseVariant::Texture:
      return f.template operator()<LoadTexture, U>();
    case ChaseVariant::Constant:
      return f.template operator()<LoadConstant, U>();
    case ChaseVariant::Shared:
      return f.template operator()<LoadShared, U>();
    case ChaseVariant::NoLoad:
      return f.template operator()<NoLoad, U>();
  }
  return cudaErrorInvalidValue;
}

struct Launch {
  const ChaseLaunchArgs& args;
  std::uint32_t blocks;
  const ChaseKernelConfig& config;
  cudaStream_t stream;
  template <class Load, class Index>
  cudaError_t operator()() const {
    return launch_variant<Load, Index>(args, blocks, config, stream);
  }
};

struct StaticShared {
  std::size_t* bytes;
  template <class Load, class Index>
  cudaError_t operator()() const {
    return static_shared<Load, Index>(bytes);
  }
};

template <class Index>
__global__ void fill_strided_kernel(Index* base, std::uint64_t elements, std::uint64_t stride) {
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t k = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < elements;
       k += step)
    base[k * stride] = static_cast<Index>((k + 1 == elements ? 0 : k + 1) * stride);
}

template <class Index>
__global__ void scatter_kernel(Index* base, const std::uint64_t* successors, std::uint64_t elements,
                               std::uint64_t stride) {
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t k = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < elements;
       k += step)
    base[k * stride] = static_cast<Index>(successors[k] * stride);
}

// A sequence: element order[i] holds the position of order[i + 1], the last that of order[0].
template <class Index>
__global__ void scatter_sequence_kernel(Index* base, const std::uint64_t* order, std::uint64_t n,
                                        std::uint64_t stride) {
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step)
    base[order[i] * stride] = static_cast<Index>(order[i + 1 == n ? 0 : i + 1] * stride);
}

// A chain-timed array in device memory: element k holds the address of its successor (the next
// element, or successors[k] when given).
__global__ void fill_pointers_kernel(std::uint8_t* base, const std::uint64_t* successors,
                                     std::uint64_t elements, std::uint64_t stride_bytes) {
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t k = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < elements;
       k += step) {
    const std::uint64_t next =
        successors != nullptr ? successors[k] : (k + 1 == elements ? 0 : k + 1);
    *reinterpret_cast<std::uint64_t*>(base + k * stride_bytes) =
        reinterpret_cast<std::uint64_t>(base + next * stride_bytes);
  }
}

__global__ void spin_kernel(std::uint64_t ns) {
  const std::uint64_t end = read_globaltimer() + ns;
  while (read_globaltimer() < end) {
  }
}

constexpr std::uint32_t kFillBlocks = 1024;
constexpr std::uint32_t kFillThreads = 256;

}  // namespace

cudaError_t launch_chase(ChaseVariant variant, bool wide, const ChaseLaunchArgs& args,
                         std::uint32_t blocks, const ChaseKernelConfig& config, cudaStream_t s) {
  return dispatch(variant, wide, Launch{args, blocks, config, s});
}

cudaError_t chase_static_shared_bytes(ChaseVariant variant, bool wide, std::size_t* bytes) {
  return dispatch(variant, wide, StaticShared{bytes});
}

cudaError_t fill_strided(void* base, unsigned index_bytes, std::uint64_t elements,
                         std::uint64_t stride_words, cudaStream_t s) {
  if (index_bytes == 4)
    fill_strided_kernel<<<kFillBlocks, kFillThreads, 0, s>>>(static_cast<std::uint32_t*>(base),
                                                             elements, stride_words);
  else
    fill_strided_kernel<<<kFillBlocks, kFillThreads, 0, s>>>(static_cast<Wide*>(base), elements,
                                                             stride_words);
  return cudaGetLastError();
}

cudaError_t scatter_successors(void* base, unsigned index_bytes, const std::uint64_t* successors,
                               std::uint64_t elements, std::uint64_t stride_words, cudaStream_t s) {
  if (index_bytes == 4)
    scatter_kernel<<<kFillBlocks, kFillThreads, 0, s>>>(static_cast<std::uint32_t*>(base),
                                                        successors, elements, stride_words);
  else
    scatter_kernel<<<kFillBlocks, kFillThreads, 0, s>>>(static_cast<Wide*>(base), successors,
                                                        elements, stride_words);
  return cudaGetLastError();
}

cudaError_t scatter_sequence(void* base, unsigned index_bytes, const std::uint64_t* order,
                             std::uint64_t n, std::uint64_t stride_words, cudaStream_t s) {
  if (index_bytes == 4)
    scatter_sequence_kernel<<<kFillBlocks, kFillThreads, 0, s>>>(static_cast<std::uint32_t*>(base),
                                                                 order, n, stride_words);
  else
    scatter_sequence_kernel<<<kFillBlocks, kFillThreads, 0, s>>>(static_cast<Wide*>(base), order, n,
                                                                 stride_words);
  return cudaGetLastError();
}

cudaError_t fill_pointer_chain(void* base, const std::uint64_t* successors, std::uint64_t elements,
                               std::uint64_t stride_bytes, cudaStream_t s) {
  fill_pointers_kernel<<<kFillBlocks, kFillThreads, 0, s>>>(static_cast<std::uint8_t*>(base),
                                                            successors, elements, stride_bytes);
  return cudaGetLastError();
}

cudaError_t upload_constant(const std::uint32_t* words, std::size_t count, std::size_t word_offset,
                            cudaStream_t s) {
  return cudaMemcpyToSymbolAsync(gputopo_constant_bank, words, count * sizeof(std::uint32_t),
                                 word_offset * sizeof(std::uint32_t), cudaMemcpyHostToDevice, s);
}

std::size_t constant_bank_bytes() { return sizeof(gputopo_constant_bank); }

cudaError_t launch_spin(std::uint64_t ns, std::uint32_t blocks, cudaStream_t s) {
  spin_kernel<<<blocks, 128, 0, s>>>(ns);
  return cudaGetLastError();
}

}  // namespace gputopo::device::cuda
