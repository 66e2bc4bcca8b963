// Bandwidth kernels: a family over bytes per access (4, 8, 16) and accesses in flight per thread
// (1, 2, 4, 8, 16), in inline PTX so that no pass over a small buffer can be folded into another.
// Device-memory streams walk the buffer with the whole grid `passes` times (L2-only loads, plain
// stores); L1 and shared streams have every block read its own slice again and again, and the
// shared-set stream every block the whole buffer.
#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/kernels.hpp"

namespace gputopo::device::cuda {
namespace {

template <int Bytes>
struct Access;

template <>
struct Access<4> {
  using T = std::uint32_t;
  static __device__ __forceinline__ std::uint32_t load_cg(const T* p) {
    std::uint32_t v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
  }
  static __device__ __forceinline__ std::uint32_t load_ca(const T* p) {
    std::uint32_t v;
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
  }
  static __device__ __forceinline__ std::uint32_t load_shared(std::uint32_t a) {
    std::uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
    return v;
  }
  static __device__ __forceinline__ void store(T* p, std::uint32_t w) {
    asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(w) : "memory");
  }
};

template <>
struct Access<8> {
  using T = uint2;
  static __device__ __forceinline__ std::uint32_t load_cg(const T* p) {
    std::uint32_t a, b;
    asm volatile("ld.global.cg.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(p));
    return a ^ b;
  }
  static __device__ __forceinline__ std::uint32_t load_ca(const T* p) {
    std::uint32_t a, b;
    asm volatile("ld.global.ca.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(p));
    return a ^ b;
  }
  static __device__ __forceinline__ std::uint32_t load_shared(std::uint32_t p) {
    std::uint32_t a, b;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(p));
    return a ^ b;
  }
  static __device__ __forceinline__ void store(T* p, std::uint32_t w) {
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(w), "r"(~w) : "memory");
  }
};

template <>
struct Access<16> {
  using T = uint4;
  static __device__ __forceinline__ std::uint32_t load_cg(const T* p) {
    std::uint32_t a, b, c, d;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "l"(p));
    return a ^ b ^ c ^ d;
  }
  static __device__ __forceinline__ std::uint32_t load_ca(const T* p) {
    std::uint32_t a, b, c, d;
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "l"(p));
    return a ^ b ^ c ^ d;
  }
  static __device__ __forceinline__ std::uint32_t load_shared(std::uint32_t p) {
    std::uint32_t a, b, c, d;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "r"(p));
    return a ^ b ^ c ^ d;
  }
  static __device__ __forceinline__ void store(T* p, std::uint32_t w) {
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w), "r"(~w), "r"(w + 1),
                 "r"(w ^ 0x55555555U)
                 : "memory");
  }
};

// Never true for the data the kernels read, but the compiler cannot know: the loads stay.
__device__ __forceinline__ void keep(std::uint32_t acc, std::uint32_t* sink) {
  if (acc == 0x9E3779B9U) sink[0] = acc;
}

constexpr int kLanes = 32;

// The walk of every stream kernel, `passes` times over `n` accesses: a warp takes tiles of
// U x 32 accesses, from tile `first` in steps of `step` tiles, and its lane l touches accesses
// l, l + 32, ... of a tile, so that each of the U accesses is one coalesced instruction at an
// offset the assembler folds into it; tile(i) gets the tile's first access plus the lane. The
// accesses past the last whole tile go one at a time: one(i) from `rest_first` in steps of
// `rest_step`.
// Index is 32 bits wide where the accesses fit: the loop then costs the SM fewer instructions
// than the loads it issues (shared memory, an SM's L1).
template <int U, class Index, class Tile, class One>
__device__ __forceinline__ void tile_walk(Index first, Index step, Index n, std::uint32_t passes,
                                          Index rest_first, Index rest_step, Tile tile, One one) {
  const Index tiles = n / (U * kLanes);
  const Index lane = threadIdx.x % kLanes;
  for (std::uint32_t p = 0; p < passes; ++p) {
    for (Index t = first; t < tiles; t += step) tile(t * U * kLanes + lane, p);
    for (Index i = tiles * U * kLanes + rest_first; i < n; i += rest_step) one(i, p);
  }
}

// The walk of the whole grid (every warp its own tiles) and of one block (the block's warps).
template <int U, class Tile, class One>
__device__ __forceinline__ void grid_walk(std::uint64_t n, std::uint32_t passes, Tile tile,
                                          One one) {
  const std::uint64_t thread = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::uint64_t threads = std::uint64_t{gridDim.x} * blockDim.x;
  tile_walk<U, std::uint64_t>(thread / kLanes, threads / kLanes, n, passes, thread, threads, tile,
                              one);
}
// A block's walk: its accesses fit in 32 bits (the runner keeps a block's buffer under 4 GiB).
template <int U, class Tile, class One>
__device__ __forceinline__ void block_walk(std::uint64_t n, std::uint32_t passes, Tile tile,
                                           One one) {
  tile_walk<U, std::uint32_t>(threadIdx.x / kLanes, blockDim.x / kLanes,
                              static_cast<std::uint32_t>(n), passes, threadIdx.x, blockDim.x, tile,
                              one);
}

// A block's walk in the block's stride: thread t touches t, t + threads, ... and issues U of them
// at a time. Shared memory streams 6 % faster this way than in warp tiles (H100, H200).
template <int U, class Group, class One>
__device__ __forceinline__ void stride_walk(std::uint32_t n, std::uint32_t passes, Group group,
                                            One one) {
  const std::uint32_t stride = blockDim.x;
  for (std::uint32_t p = 0; p < passes; ++p) {
    std::uint32_t i = threadIdx.x;
    for (; i + (U - 1) * stride < n; i += U * stride) group(i, stride);
    for (; i < n; i += stride) one(i);
  }
}

// U loads issued before any is used, folded into one word.
template <int U, class Load>
__device__ __forceinline__ std::uint32_t xor_of(Load load) {
  std::uint32_t v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = load(u * kLanes);
  std::uint32_t acc = 0;
#pragma unroll
  for (int u = 0; u < U; ++u) acc ^= v[u];
  return acc;
}

template <int B, int U>
__global__ void read_kernel(StreamArgs a) {
  using A = Access<B>;
  const auto* src = static_cast<const typename A::T*>(a.src);
  std::uint32_t acc = 0;
  grid_walk<U>(
      a.vectors, a.passes,
      [&](std::uint64_t i, std::uint32_t) {
        const auto* p = src + i;
        acc ^= xor_of<U>([&](int o) { return A::load_cg(p + o); });
      },
      [&](std::uint64_t i, std::uint32_t) { acc ^= A::load_cg(src + i); });
  keep(acc, a.sink);
}

template <int B, int U>
__global__ void write_kernel(StreamArgs a) {
  using A = Access<B>;
  auto* dst = static_cast<typename A::T*>(a.dst);
  const auto one = [&](std::uint64_t i, std::uint32_t p) {
    A::store(dst + i, static_cast<std::uint32_t>(i) + p);
  };
  grid_walk<U>(
      a.vectors, a.passes,
      [&](std::uint64_t i, std::uint32_t p) {
#pragma unroll
        for (int u = 0; u < U; ++u) one(i + u * kLanes, p);
      },
      one);
}

template <int B, int U>
__global__ void copy_kernel(StreamArgs a) {
  using A = Access<B>;
  const auto* src = static_cast<const typename A::T*>(a.src);
  auto* dst = static_cast<typename A::T*>(a.dst);
  grid_walk<U>(
      a.vectors, a.passes,
      [&](std::uint64_t i, std::uint32_t) {
        std::uint32_t v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = A::load_cg(src + i + u * kLanes);
#pragma unroll
        for (int u = 0; u < U; ++u) A::store(dst + i + u * kLanes, v[u]);
      },
      [&](std::uint64_t i, std::uint32_t) { A::store(dst + i, A::load_cg(src + i)); });
}

// Every block reads `vectors` accesses from `src`, `passes` times: through L1 from its own slice
// (src + b x vectors) for L1Read, or all blocks the same buffer through L2 only for
// SharedSetRead.
template <int B, int U, bool L1>
__global__ void block_read_kernel(StreamArgs a) {
  using A = Access<B>;
  const auto* src = static_cast<const typename A::T*>(a.src) + (L1 ? blockIdx.x * a.vectors : 0);
  const auto load = [](const typename A::T* p) { return L1 ? A::load_ca(p) : A::load_cg(p); };
  std::uint32_t acc = 0;
  block_walk<U>(
      a.vectors, a.passes,
      [&](std::uint32_t i, std::uint32_t) {
        const auto* p = src + i;
        acc ^= xor_of<U>([&](int o) { return load(p + o); });
      },
      [&](std::uint32_t i, std::uint32_t) { acc ^= load(src + i); });
  keep(acc, a.sink);
}

// Every block fills `vectors` accesses of dynamic shared memory, then reads them `passes` times.
template <int B, int U>
__global__ void shared_read_kernel(StreamArgs a) {
  using A = Access<B>;
  extern __shared__ std::uint32_t words[];
  for (std::uint64_t w = threadIdx.x; w < a.vectors * (B / 4); w += blockDim.x)
    words[w] = static_cast<std::uint32_t>(w * 2654435761U);
  __syncthreads();
  const auto base = static_cast<std::uint32_t>(__cvta_generic_to_shared(words));
  std::uint32_t acc = 0;
  stride_walk<U>(
      static_cast<std::uint32_t>(a.vectors), a.passes,
      [&](std::uint32_t i, std::uint32_t stride) {
        std::uint32_t v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = A::load_shared(base + (i + u * stride) * B);
#pragma unroll
        for (int u = 0; u < U; ++u) acc ^= v[u];
      },
      [&](std::uint32_t i) { acc ^= A::load_shared(base + i * B); });
  keep(acc, a.sink);
}

template <int B, int U>
cudaError_t launch_one(StreamKernel k, const StreamArgs& a, std::uint32_t blocks,
                       std::uint32_t threads, std::uint32_t shared_bytes, cudaStream_t s) {
  switch (k) {
    case StreamKernel::Read:
      read_kernel<B, U><<<blocks, threads, 0, s>>>(a);
      break;
    case StreamKernel::Write:
      write_kernel<B, U><<<blocks, threads, 0, s>>>(a);
      break;
    case StreamKernel::Copy:
      copy_kernel<B, U><<<blocks, threads, 0, s>>>(a);
      break;
    case StreamKernel::L1Read:
      block_read_kernel<B, U, true><<<blocks, threads, 0, s>>>(a);
      break;
    case StreamKernel::SharedSetRead:
      block_read_kernel<B, U, false><<<blocks, threads, 0, s>>>(a);
      break;
    case StreamKernel::SharedRead: {
      const auto rc = cudaFuncSetAttribute(shared_read_kernel<B, U>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared_bytes));
      if (rc != cudaSuccess) return rc;
      shared_read_kernel<B, U><<<blocks, threads, shared_bytes, s>>>(a);
      break;
    }
  }
  return cudaGetLastError();
}

template <int B>
cudaError_t launch_width(StreamKernel k, std::uint32_t unroll, const StreamArgs& a,
                         std::uint32_t blocks, std::uint32_t threads, std::uint32_t shared_bytes,
                         cudaStream_t s) {
  switch (unroll) {
    case 1:
      return launch_one<B, 1>(k, a, blocks, threads, shared_bytes, s);
    case 2:
      return launch_one<B, 2>(k, a, blocks, threads, shared_bytes, s);
    case 4:
      return launch_one<B, 4>(k, a, blocks, threads, shared_bytes, s);
    case 8:
      return launch_one<B, 8>(k, a, blocks, threads, shared_bytes, s);
    case 16:
      return launch_one<B, 16>(k, a, blocks, threads, shared_bytes, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_stream(StreamKernel kernel, const StreamVariant& v, const StreamArgs& args,
                          std::uint32_t blocks, std::uint32_t threads, cudaStream_t s) {
  const auto shared_bytes = static_cast<std::uint32_t>(args.vectors * v.access_bytes);
  switch (v.access_bytes) {
    case 4:
      return launch_width<4>(kernel, v.unroll, args, blocks, threads, shared_bytes, s);
    case 8:
      return launch_width<8>(kernel, v.unroll, args, blocks, threads, shared_bytes, s);
    case 16:
      return launch_width<16>(kernel, v.unroll, args, blocks, threads, shared_bytes, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace gputopo::device::cuda
