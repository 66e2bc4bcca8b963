#pragma once

// Host-callable wrappers around the kernels (*.cu). Included by nvcc (C++17) and by the host
// code: CUDA runtime types only, no project headers beyond the job layout. Every wrapper returns
// the first CUDA error it met, for the caller to check().
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "device/compute_op.hpp"
#include "device/cuda/chase_job.hpp"
#include "device/cuda/compute_job.hpp"
#include "device/cuda/stream_variant.hpp"

namespace gputopo::device::cuda {

// Which load the timed chase uses: one per memory space (device::Space order), plus NoLoad,
// which times the clock reads and the dependent store alone (the timing overhead).
enum class ChaseVariant : int { L1, L2, ReadOnly, Texture, Constant, Shared, NoLoad };

struct ChaseKernelConfig {
  int carveout_percent = -1;  // cudaFuncAttributePreferredSharedMemoryCarveout; -1: default
  std::uint32_t dynamic_shared_bytes = 0;
};

// Sets the variant's carve-out and dynamic shared-memory limit, then launches `blocks` blocks of
// kChaseThreads threads. `wide`: 64-bit indices (global spaces only).
cudaError_t launch_chase(ChaseVariant variant, bool wide, const ChaseLaunchArgs& args,
                         std::uint32_t blocks, const ChaseKernelConfig& config, cudaStream_t s);
// Static shared memory of a variant (its record buffer), which counts against the carve-out.
cudaError_t chase_static_shared_bytes(ChaseVariant variant, bool wide, std::size_t* bytes);

// Writes the strided cycle (element k -> k + 1, wrapping) into an array of 4- or 8-byte words.
cudaError_t fill_strided(void* base, unsigned index_bytes, std::uint64_t elements,
                         std::uint64_t stride_words, cudaStream_t s);
// Writes element k -> successors[k] (device array of `elements` 64-bit element numbers).
cudaError_t scatter_successors(void* base, unsigned index_bytes, const std::uint64_t* successors,
                               std::uint64_t elements, std::uint64_t stride_words, cudaStream_t s);
// Writes element order[i] -> order[i + 1] (wrapping) for the `n` listed elements only.
cudaError_t scatter_sequence(void* base, unsigned index_bytes, const std::uint64_t* order,
                             std::uint64_t n, std::uint64_t stride_words, cudaStream_t s);
// Writes a chain-timed array: element k (at k x stride_bytes) holds the 64-bit address of element
// successors[k], or of k + 1 (wrapping) when `successors` is null.
cudaError_t fill_pointer_chain(void* base, const std::uint64_t* successors, std::uint64_t elements,
                               std::uint64_t stride_bytes, cudaStream_t s);
// Copies words into the __constant__ chase bank at a word offset.
cudaError_t upload_constant(const std::uint32_t* words, std::size_t count, std::size_t word_offset,
                            cudaStream_t s);
std::size_t constant_bank_bytes();

// One thread follows a chain written by fill_pointer_chain for `loads` dependent L2-level loads
// and stores the last address to `sink` (the peer load latency; the chain may live on a peer).
cudaError_t launch_load_chain(std::uint64_t start, std::uint64_t loads, std::uint64_t* sink,
                              cudaStream_t s);

// Keeps every SM busy for about `ns` nanoseconds, so that the clocks are up before timing.
cudaError_t launch_spin(std::uint64_t ns, std::uint32_t blocks, cudaStream_t s);

// Stream kernels (stream_kernels.cu). Read, Write and Copy walk device memory with the whole grid,
// `passes` times (L2-only loads, plain stores); L1Read has block b read its own `vectors`
// accesses from src + b x vectors through L1, SharedRead its own `vectors` accesses of dynamic
// shared memory, SharedSetRead every block the same `vectors` accesses through L2 only, each
// `passes` times.
enum class StreamKernel : int { Read, Write, Copy, L1Read, SharedRead, SharedSetRead };
struct StreamArgs {
  void* dst = nullptr;
  const void* src = nullptr;
  std::uint64_t vectors = 0;  // accesses of access_bytes: the buffer, or one block's slice
  std::uint32_t passes = 1;
  std::uint32_t* sink = nullptr;  // one word the reads may write
};
cudaError_t launch_stream(StreamKernel kernel, const StreamVariant& variant, const StreamArgs& args,
                          std::uint32_t blocks, std::uint32_t threads, cudaStream_t s);

// Thread-block clusters of `cluster_size` blocks, one block per SM (each block asks for
// `shared_bytes` of dynamic shared memory): how many clusters run at once, and a launch that
// writes each block's %smid, block b of cluster c at smids[c * cluster_size + b].
cudaError_t max_active_clusters(int cluster_size, std::uint32_t shared_bytes, int* clusters);
cudaError_t launch_cluster_probe(int cluster_size, int clusters, std::uint32_t shared_bytes,
                                 int* smids, std::uint32_t* started, std::uint64_t wait_ns,
                                 cudaStream_t s);

// Compute micro-kernels (compute_kernels.cu): `blocks` blocks of `threads` threads, each thread
// `ilp` (1, 2, 4 or 8) chains of `op`; cudaErrorInvalidValue for another ilp.
// The wgmma kernel of a wgmma op (wgmma_kernel.cu, built for sm_90a only): `threads` a multiple
// of 128.
// launch_compute launches the generic kernel of every other op.
cudaError_t launch_wgmma(ComputeOp op, const ComputeLaunchArgs& args, std::uint32_t blocks,
                         std::uint32_t threads, cudaStream_t s);
cudaError_t launch_compute(ComputeOp op, int ilp, const ComputeLaunchArgs& args,
                           std::uint32_t blocks, std::uint32_t threads, cudaStream_t s);

}  // namespace gputopo::device::cuda
