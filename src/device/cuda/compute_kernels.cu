// Compute micro-kernels: one generic kernel over the op (compute_ops.cuh) and the number of
// independent chains per thread (ILP). Every thread runs ILP chains of trips x kComputeUnroll
// dependent steps, the chains interleaved; each warp reads %clock64 before and after. With one
// chain and one warp the span is the latency of a dependent chain, with many the throughput.
// A chain of one per thread up to kStraightMarks x kStraightMarkSteps runs as straight code
// instead (compute_job.hpp says why).
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "device/cuda/compute_ops.cuh"
#include "device/cuda/device_clock.cuh"
#include "device/cuda/kernels.hpp"

namespace gputopo::device::cuda {
namespace {

// Trips between two reads of the deadline timer.
constexpr std::uint32_t kDeadlineTrips = 64;

// The operands of every thread, after the block's shared words are set up (and, for a cluster
// op, the pair's too).
template <ComputeOp Op>
__device__ __forceinline__ Operands prepare(const ComputeLaunchArgs& args, std::uint32_t* s_words) {
  Operands o;
  o.u1 = args.u1;
  o.u2 = args.u2;
  o.f1 = args.f1;
  o.f2 = args.f2;
  o.d1 = args.d1;
  o.d2 = args.d2;
  o.address_mask = args.address_mask;
  o.arg = args.arg;
  o.thread = blockIdx.x * blockDim.x + threadIdx.x;
  o.threads = gridDim.x * blockDim.x;
  o.global_base = args.atom_words;
  o.shared_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(s_words));
  // Every word holds its own shared-window address: a shared load chained through what it loads
  // stays on its word (the atomics only add to these values).
  // A distributed-shared-memory chain reads the other block's words: they hold their cluster
  // address, and both blocks have written theirs before either reads.
  const std::uint32_t rank = Op == ComputeOp::DsmemLoad ? cluster_rank() : 0;
  for (std::uint32_t w = threadIdx.x; w < args.shared_words; w += blockDim.x)
    s_words[w] = Op == ComputeOp::DsmemLoad ? cluster_address(o.shared_base + 4 * w, rank)
                                            : o.shared_base + 4 * w;
  if constexpr (kCluster<Op>) cluster_barrier();
  return o;
}

// Stores the chains (so that nothing is dropped), each warp's clocks, the block's SM and status.
template <ComputeOp Op, int Ilp>
__device__ __forceinline__ void finish(const ComputeLaunchArgs& args,
                                       const typename OpStep<Op>::T (&chain)[Ilp],
                                       std::uint64_t start, std::uint64_t end, bool late) {
  if constexpr (kCluster<Op>) cluster_barrier();  // the pair's shared memory stays until both end
  std::uint32_t folded = 0;
#pragma unroll
  for (int j = 0; j < Ilp; ++j) folded ^= OpStep<Op>::bits(chain[j]);
  args.sink[threadIdx.x] = folded;
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) {
    args.clocks[2 * warp] = start;
    args.clocks[2 * warp + 1] = end;
  }
  __shared__ std::uint32_t s_late;
  if (threadIdx.x == 0) s_late = 0;
  __syncthreads();
  if (late) s_late = 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    args.smids[blockIdx.x] = read_smid();
    args.status[blockIdx.x] =
        static_cast<std::uint32_t>(s_late != 0 ? ComputeStatus::TimedOut : ComputeStatus::Done);
  }
}

template <ComputeOp Op, int Ilp>
__global__ void __launch_bounds__(1024) compute_kernel(ComputeLaunchArgs args) {
  using S = OpStep<Op>;
  extern __shared__ std::uint32_t s_words[];
  const Operands o = prepare<Op>(args, s_words);
  typename S::T chain[Ilp];
#pragma unroll
  for (int j = 0; j < Ilp; ++j) chain[j] = S::make(o, j);
  const std::uint64_t start_ns = read_globaltimer();
  bool late = false;
  __syncthreads();

  const std::uint64_t start = read_clock64();
  for (std::uint32_t trip = 0; trip < args.trips; ++trip) {
#pragma unroll
    for (std::uint32_t u = 0; u < kComputeUnroll; ++u) {
#pragma unroll
      for (int j = 0; j < Ilp; ++j) S::step(chain[j], o);
    }
    if (!kCluster<Op> && trip % kDeadlineTrips == kDeadlineTrips - 1) {
      bool over = read_globaltimer() - start_ns > args.deadline_ns;
      // A barrier op stops for the whole block or not at all: a thread alone at bar.sync waits.
      if constexpr (kBlockUniform<Op>) over = __syncthreads_or(over) != 0;
      if (over) {
        late = true;
        break;
      }
    }
  }
  const std::uint64_t end = read_clock64();
  finish<Op, Ilp>(args, chain, start, end, late);
}

// One chain per thread, kStraightMarks x kStraightMarkSteps steps without a loop, the clock read
// after every kStraightMarkSteps; bounded by its length, so without a deadline.
template <ComputeOp Op>
__global__ void __launch_bounds__(1024) straight_kernel(ComputeLaunchArgs args) {
  using S = OpStep<Op>;
  extern __shared__ std::uint32_t s_words[];
  const Operands o = prepare<Op>(args, s_words);
  typename S::T chain[1] = {S::make(o, 0)};
  __syncthreads();

  std::uint64_t marks[kStraightMarks];
  const std::uint64_t start = read_clock64();
#pragma unroll
  for (std::uint32_t m = 0; m < kStraightMarks; ++m) {
#pragma unroll
    for (std::uint32_t u = 0; u < kStraightMarkSteps; ++u) S::step(chain[0], o);
    marks[m] = read_clock64();
  }
  std::uint64_t end = marks[0];
#pragma unroll
  for (std::uint32_t m = 1; m < kStraightMarks; ++m)
    if (m + 1 == args.straight_marks) end = marks[m];
  finish<Op, 1>(args, chain, start, end, false);
}

using Kernel = void (*)(ComputeLaunchArgs);

template <ComputeOp Op>
Kernel kernel_for(int ilp) {
  switch (ilp) {
    case 1:
      return compute_kernel<Op, 1>;
    case 2:
      return compute_kernel<Op, 2>;
    case 4:
      return compute_kernel<Op, 4>;
    case 8:
      return compute_kernel<Op, 8>;
    default:
      return nullptr;
  }
}

template <ComputeOp Op>
Kernel straight_for() {
  if constexpr (has_straight_kernel(Op))
    return straight_kernel<Op>;
  else
    return nullptr;
}

template <std::size_t... I>
Kernel lookup(ComputeOp op, int ilp, bool straight, std::index_sequence<I...>) {
  Kernel k = nullptr;
  const auto pick = [&](auto o) {
    constexpr ComputeOp Op = decltype(o)::value;
    if (straight && ilp == 1) k = straight_for<Op>();
    if (k == nullptr) k = kernel_for<Op>(ilp);
  };
  ((static_cast<std::size_t>(op) == I
        ? pick(std::integral_constant<ComputeOp, static_cast<ComputeOp>(I)>{})
        : void()),
   ...);
  return k;
}

}  // namespace

cudaError_t launch_compute(ComputeOp op, int ilp, const ComputeLaunchArgs& args,
                           std::uint32_t blocks, std::uint32_t threads, cudaStream_t s) {
  const Kernel kernel =
      lookup(op, ilp, args.straight_marks > 0,
             std::make_index_sequence<static_cast<std::size_t>(kComputeOpCount)>());
  if (kernel == nullptr) return cudaErrorInvalidValue;
  const std::size_t shared = static_cast<std::size_t>(args.shared_words) * 4;
  if (!cluster_op(op)) {
    kernel<<<blocks, threads, shared, s>>>(args);
    return cudaGetLastError();
  }
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = kComputeClusterBlocks;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared;
  config.stream = s;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, args);
}

}  // namespace gputopo::device::cuda
