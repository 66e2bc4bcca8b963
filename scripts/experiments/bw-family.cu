// A stand-alone experiment behind gputopo's bandwidth kernels (docs/methods.md), not part of the
// tool: it times a family of read, write, copy and shared-memory kernels over load width, loads in
// flight, load and store operators, launch shape, working set and access pattern, and prints one
// CSV row a configuration:
//   what,pattern,op,width,unroll,threads,blocks_per_sm,set_bytes,gbps,bytes_per_clk_sm
// Patterns: `grid` (a grid-stride walk: each element read by one thread a pass), `own` (block b
// walks its own chunk), `shared` (every block walks the same chunk), `groups<G>` (blocks b and
// b + G walk the same chunk), `flat` (one element a thread, a grid as large as the data).
// Build here:
//   nvcc -std=c++17 -O3 -arch=sm_90 -cudart static -o bw-family bw-family.cu
//   bw-family [l2|l1|shared|dram|all]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using u32 = std::uint32_t;
using u64 = unsigned long long;

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "bw-family: %s: %s\n", what, cudaGetErrorString(rc));
  std::exit(1);
}

enum Op : int { kCg, kCa, kNc, kLu };
const char* op_name(int op) {
  static const char* names[] = {"cg", "ca", "nc", "lu"};
  return names[op];
}
enum StoreOp : int { kWb, kSCg, kCs };
const char* store_name(int op) {
  static const char* names[] = {"wb", "cg", "cs"};
  return names[op];
}

template <int OP>
__device__ __forceinline__ u32 ld4(const void* p) {
  u32 a, b, c, d;
  if constexpr (OP == kCg)
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "l"(p));
  else if constexpr (OP == kCa)
    asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "l"(p));
  else if constexpr (OP == kNc)
    asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "l"(p));
  else
    asm volatile("ld.global.lu.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "l"(p));
  return a ^ b ^ c ^ d;
}
template <int OP>
__device__ __forceinline__ u32 ld2(const void* p) {
  u32 a, b;
  if constexpr (OP == kCg)
    asm volatile("ld.global.cg.v2.u32 {%0,%1}, [%2];" : "=r"(a), "=r"(b) : "l"(p));
  else if constexpr (OP == kCa)
    asm volatile("ld.global.ca.v2.u32 {%0,%1}, [%2];" : "=r"(a), "=r"(b) : "l"(p));
  else if constexpr (OP == kNc)
    asm volatile("ld.global.nc.v2.u32 {%0,%1}, [%2];" : "=r"(a), "=r"(b) : "l"(p));
  else
    asm volatile("ld.global.lu.v2.u32 {%0,%1}, [%2];" : "=r"(a), "=r"(b) : "l"(p));
  return a ^ b;
}
template <int OP>
__device__ __forceinline__ u32 ld1(const void* p) {
  u32 a;
  if constexpr (OP == kCg)
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(a) : "l"(p));
  else if constexpr (OP == kCa)
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(a) : "l"(p));
  else if constexpr (OP == kNc)
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(a) : "l"(p));
  else
    asm volatile("ld.global.lu.u32 %0, [%1];" : "=r"(a) : "l"(p));
  return a;
}
template <int W, int OP>
__device__ __forceinline__ u32 ld(const char* base, u64 i) {
  const void* p = base + i * W;
  if constexpr (W == 16) return ld4<OP>(p);
  if constexpr (W == 8) return ld2<OP>(p);
  return ld1<OP>(p);
}

template <int W, int OP>
__device__ __forceinline__ void st(char* base, u64 i, u32 w) {
  void* p = base + i * W;
  if constexpr (W == 16) {
    if constexpr (OP == kWb)
      asm volatile("st.global.v4.u32 [%0], {%1,%1,%1,%1};" ::"l"(p), "r"(w) : "memory");
    else if constexpr (OP == kSCg)
      asm volatile("st.global.cg.v4.u32 [%0], {%1,%1,%1,%1};" ::"l"(p), "r"(w) : "memory");
    else
      asm volatile("st.global.cs.v4.u32 [%0], {%1,%1,%1,%1};" ::"l"(p), "r"(w) : "memory");
  } else if constexpr (W == 8) {
    if constexpr (OP == kWb)
      asm volatile("st.global.v2.u32 [%0], {%1,%1};" ::"l"(p), "r"(w) : "memory");
    else if constexpr (OP == kSCg)
      asm volatile("st.global.cg.v2.u32 [%0], {%1,%1};" ::"l"(p), "r"(w) : "memory");
    else
      asm volatile("st.global.cs.v2.u32 [%0], {%1,%1};" ::"l"(p), "r"(w) : "memory");
  } else {
    if constexpr (OP == kWb)
      asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(w) : "memory");
    else if constexpr (OP == kSCg)
      asm volatile("st.global.cg.u32 [%0], %1;" ::"l"(p), "r"(w) : "memory");
    else
      asm volatile("st.global.cs.u32 [%0], %1;" ::"l"(p), "r"(w) : "memory");
  }
}

struct Clock {
  u64 cycles;
  u64 ns;
};

__device__ __forceinline__ u64 globaltimer() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Block b walks chunk (b % chunks) of `chunk` elements, U loads in flight, `passes` times; or
// (grid) the whole grid walks `chunk` elements in grid stride.
template <int W, int U, int OP, bool GRID>
__global__ void read_kernel(const char* base, u64 chunk, u32 chunks, u32 passes, u32* sink,
                            Clock* clk) {
  u64 t0 = 0, g0 = 0;
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    t0 = clock64();
    g0 = globaltimer();
  }
  const char* b = GRID ? base : base + u64(blockIdx.x % chunks) * chunk * W;
  const u64 first = GRID ? u64(blockIdx.x) * blockDim.x + threadIdx.x : threadIdx.x;
  const u64 stride = GRID ? u64(gridDim.x) * blockDim.x : blockDim.x;
  u32 acc = 0;
  for (u32 p = 0; p < passes; ++p) {
    u64 i = first;
    for (; i + (U - 1) * stride < chunk; i += U * stride) {
      u32 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = ld<W, OP>(b, i + u * stride);
#pragma unroll
      for (int u = 0; u < U; ++u) acc ^= v[u];
    }
    for (; i < chunk; i += stride) acc ^= ld<W, OP>(b, i);
  }
  if (acc == 0x9E3779B9U) sink[0] = acc;
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    clk->cycles = clock64() - t0;
    clk->ns = globaltimer() - g0;
  }
}

template <int W, int U, int OP, bool GRID>
__global__ void write_kernel(char* base, u64 chunk, u32 chunks, u32 passes) {
  char* b = GRID ? base : base + u64(blockIdx.x % chunks) * chunk * W;
  const u64 first = GRID ? u64(blockIdx.x) * blockDim.x + threadIdx.x : threadIdx.x;
  const u64 stride = GRID ? u64(gridDim.x) * blockDim.x : blockDim.x;
  for (u32 p = 0; p < passes; ++p) {
    u64 i = first;
    for (; i + (U - 1) * stride < chunk; i += U * stride) {
#pragma unroll
      for (int u = 0; u < U; ++u) st<W, OP>(b, i + u * stride, u32(i) + p);
    }
    for (; i < chunk; i += stride) st<W, OP>(b, i, u32(i) + p);
  }
}

// One element a thread (U consecutive grid-sized strides), a grid as large as the data.
template <int W, int U, int OP>
__global__ void flat_write_kernel(char* base, u64 n) {
  const u64 first = u64(blockIdx.x) * blockDim.x * U + threadIdx.x;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const u64 i = first + u64(u) * blockDim.x;
    if (i < n) st<W, OP>(base, i, u32(i));
  }
}
template <int W, int U>
__global__ void flat_copy_kernel(const char* src, char* dst, u64 n) {
  const u64 first = u64(blockIdx.x) * blockDim.x * U + threadIdx.x;
  u32 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const u64 i = first + u64(u) * blockDim.x;
    v[u] = i < n ? ld<W, kCg>(src, i) : 0;
  }
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const u64 i = first + u64(u) * blockDim.x;
    if (i < n) st<W, kWb>(dst, i, v[u]);
  }
}
template <int W, int U>
__global__ void flat_read_kernel(const char* src, u64 n, u32* sink) {
  const u64 first = u64(blockIdx.x) * blockDim.x * U + threadIdx.x;
  u32 acc = 0;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const u64 i = first + u64(u) * blockDim.x;
    if (i < n) acc ^= ld<W, kCg>(src, i);
  }
  if (acc == 0x9E3779B9U) sink[0] = acc;
}

template <int W, int U>
__global__ void grid_copy_kernel(const char* src, char* dst, u64 n, u32 passes) {
  const u64 stride = u64(gridDim.x) * blockDim.x;
  for (u32 p = 0; p < passes; ++p) {
    u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < n; i += U * stride) {
      u32 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = ld<W, kCg>(src, i + u * stride);
#pragma unroll
      for (int u = 0; u < U; ++u) st<W, kWb>(dst, i + u * stride, v[u]);
    }
    for (; i < n; i += stride) st<W, kWb>(dst, i, ld<W, kCg>(src, i));
  }
}

template <int W>
__device__ __forceinline__ u32 lds(u32 a) {
  if constexpr (W == 16) {
    u32 x, y, z, w;
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "r"(a));
    return x ^ y ^ z ^ w;
  } else if constexpr (W == 8) {
    u32 x, y;
    asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(x), "=r"(y) : "r"(a));
    return x ^ y;
  } else {
    u32 x;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(a));
    return x;
  }
}

// Every block fills `n` elements of shared memory, then walks them `passes` times.
template <int W, int U>
__global__ void shared_kernel(u32 n, u32 passes, u32* sink, Clock* clk) {
  extern __shared__ u32 words[];
  for (u32 w = threadIdx.x; w < n * (W / 4); w += blockDim.x) words[w] = w * 2654435761U;
  __syncthreads();
  u64 t0 = 0, g0 = 0;
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    t0 = clock64();
    g0 = globaltimer();
  }
  const u32 base = static_cast<u32>(__cvta_generic_to_shared(words));
  const u32 stride = blockDim.x;
  u32 acc = 0;
  for (u32 p = 0; p < passes; ++p) {
    u32 i = threadIdx.x;
    for (; i + (U - 1) * stride < n; i += U * stride) {
      u32 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = lds<W>(base + (i + u * stride) * W);
#pragma unroll
      for (int u = 0; u < U; ++u) acc ^= v[u];
    }
    for (; i < n; i += stride) acc ^= lds<W>(base + i * W);
  }
  if (acc == 0x9E3779B9U) sink[0] = acc;
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    clk->cycles = clock64() - t0;
    clk->ns = globaltimer() - g0;
  }
}

struct Env {
  int sms = 0;
  int max_threads_sm = 0;
  char* a = nullptr;
  char* b = nullptr;
  u64 bytes = 0;
  u32* sink = nullptr;
  Clock* clk = nullptr;
  cudaEvent_t e0, e1;
};

Env env;

template <class F>
double time_best(F launch, int launches, int tries) {
  launch();
  check(cudaDeviceSynchronize(), "warm-up");
  float best = 1e30f;
  for (int t = 0; t < tries; ++t) {
    check(cudaEventRecord(env.e0), "record");
    for (int l = 0; l < launches; ++l) launch();
    check(cudaEventRecord(env.e1), "record");
    check(cudaEventSynchronize(env.e1), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, env.e0, env.e1), "elapsed");
    best = std::min(best, ms / launches);
  }
  check(cudaGetLastError(), "launch");
  return best / 1e3;
}

double clock_mhz() {
  Clock c{};
  check(cudaMemcpy(&c, env.clk, sizeof c, cudaMemcpyDeviceToHost), "clock");
  return c.ns ? 1e3 * static_cast<double>(c.cycles) / static_cast<double>(c.ns) : 0;
}

void row(const char* what, const std::string& pattern, const char* op, int w, int u, int threads,
         int bps, u64 set, double gbps, double mhz) {
  const double per_clk = mhz > 0 ? gbps * 1e3 / mhz / env.sms : 0;
  std::printf("%s,%s,%s,%d,%d,%d,%d,%llu,%.1f,%.2f\n", what, pattern.c_str(), op, w, u, threads,
              bps, set, gbps, per_clk);
  std::fflush(stdout);
}

// Passes so that one launch moves about `target` bytes.
u32 passes_for(u64 per_pass, double target) {
  return static_cast<u32>(std::clamp(target / static_cast<double>(per_pass), 1.0, 65536.0));
}

template <int W, int U, int OP, bool GRID>
void read_case(const char* what, const std::string& pattern, u64 set, u32 chunks, int threads,
               int bps, double target) {
  const u32 blocks = env.sms * bps;
  const u64 chunk = GRID ? set / W : set / W / chunks;
  const u64 per_pass = GRID ? set : chunk * W * blocks;
  const u32 passes = passes_for(per_pass, target);
  const double s = time_best(
      [&] {
        read_kernel<W, U, OP, GRID>
            <<<blocks, threads>>>(env.a, chunk, chunks, passes, env.sink, env.clk);
      },
      1, 3);
  row(what, pattern, op_name(OP), W, U, threads, bps, set,
      static_cast<double>(per_pass) * passes / s / 1e9, clock_mhz());
}

template <int W, int U, int OP>
void read_patterns(const char* what, u64 set, int threads, int bps, bool l1) {
  const u32 blocks = env.sms * bps;
  const double target = l1 ? 8e9 : 2e9;
  if (!l1) read_case<W, U, OP, true>(what, "grid", set, 1, threads, bps, target);
  if (l1) {
    read_case<W, U, OP, false>(what, "own", set * blocks, blocks, threads, bps, target);
  } else {
    read_case<W, U, OP, false>(what, "own", set, blocks, threads, bps, target);
  }
  read_case<W, U, OP, false>(what, "shared", set, 1, threads, bps, target);
  if (!l1)
    for (u32 g : {8u, 32u})
      read_case<W, U, OP, false>(what, "groups" + std::to_string(g), set, g, threads, bps, target);
}

template <int W, int OP>
void read_unrolls(const char* what, u64 set, int threads, int bps, bool l1) {
  read_patterns<W, 1, OP>(what, set, threads, bps, l1);
  read_patterns<W, 2, OP>(what, set, threads, bps, l1);
  read_patterns<W, 4, OP>(what, set, threads, bps, l1);
  read_patterns<W, 8, OP>(what, set, threads, bps, l1);
}

template <int OP>
void read_widths(const char* what, u64 set, int threads, int bps, bool l1) {
  read_unrolls<4, OP>(what, set, threads, bps, l1);
  read_unrolls<8, OP>(what, set, threads, bps, l1);
  read_unrolls<16, OP>(what, set, threads, bps, l1);
}

struct Shape {
  int threads, bps;
};
std::vector<Shape> shapes() {
  std::vector<Shape> out;
  for (int t : {256, 512, 1024})
    for (int b : {1, 2, 4, 8})
      if (t * b <= env.max_threads_sm) out.push_back({t, b});
  return out;
}

void l2() {
  for (u64 mb : {2, 6, 12, 20})
    for (const Shape& s : shapes()) read_widths<kCg>("l2read", mb << 20, s.threads, s.bps, false);
  for (u64 mb : {6, 12})
    for (const Shape& s : {Shape{1024, 2}, Shape{512, 4}}) {
      read_widths<kCa>("l2read", mb << 20, s.threads, s.bps, false);
      read_widths<kNc>("l2read", mb << 20, s.threads, s.bps, false);
    }
}

template <int W, int U, int OP>
void write_case(const char* what, u64 set, int threads, int bps, double target) {
  const u32 blocks = env.sms * bps;
  const u32 passes = passes_for(set, target);
  double s = time_best(
      [&] { write_kernel<W, U, OP, true><<<blocks, threads>>>(env.a, set / W, 1, passes); }, 1, 3);
  row(what, "grid", store_name(OP), W, U, threads, bps, set,
      static_cast<double>(set) * passes / s / 1e9, 0);
  const u64 chunk = set / W / blocks;
  s = time_best(
      [&] { write_kernel<W, U, OP, false><<<blocks, threads>>>(env.a, chunk, blocks, passes); }, 1,
      3);
  row(what, "own", store_name(OP), W, U, threads, bps, set,
      static_cast<double>(chunk * W * blocks) * passes / s / 1e9, 0);
}

template <int W, int U, int OP>
void flat_write_case(u64 set, int threads) {
  const u64 n = set / W;
  const u32 blocks = static_cast<u32>((n + u64(threads) * U - 1) / (u64(threads) * U));
  const double s =
      time_best([&] { flat_write_kernel<W, U, OP><<<blocks, threads>>>(env.a, n); }, 3, 3);
  row("dramwrite", "flat", store_name(OP), W, U, threads, 0, set,
      static_cast<double>(set) / s / 1e9, 0);
}

template <int OP>
void write_family(const char* what, u64 set, int threads, int bps, double target) {
  write_case<4, 1, OP>(what, set, threads, bps, target);
  write_case<8, 1, OP>(what, set, threads, bps, target);
  write_case<8, 2, OP>(what, set, threads, bps, target);
  write_case<16, 1, OP>(what, set, threads, bps, target);
  write_case<16, 2, OP>(what, set, threads, bps, target);
  write_case<16, 4, OP>(what, set, threads, bps, target);
}

void l2write() {
  for (u64 mb : {6, 12, 20})
    for (const Shape& s : shapes()) {
      write_family<kWb>("l2write", mb << 20, s.threads, s.bps, 2e9);
      write_family<kSCg>("l2write", mb << 20, s.threads, s.bps, 2e9);
      write_family<kCs>("l2write", mb << 20, s.threads, s.bps, 2e9);
    }
}

void l1() {
  for (u64 kb : {16, 32, 64, 96, 128})
    for (const Shape& s : shapes()) {
      const u64 set = (kb << 10) / s.bps;
      read_widths<kCa>("l1read", set, s.threads, s.bps, true);
      read_widths<kNc>("l1read", set, s.threads, s.bps, true);
    }
}

template <int W, int U>
void shared_case(u32 bytes, int threads, int bps) {
  const u32 blocks = env.sms * bps;
  const u32 n = bytes / W;
  const u32 passes = passes_for(u64(bytes) * blocks, 16e9);
  check(cudaFuncSetAttribute(shared_kernel<W, U>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(bytes)),
        "shared attribute");
  const double s = time_best(
      [&] { shared_kernel<W, U><<<blocks, threads, bytes>>>(n, passes, env.sink, env.clk); }, 1, 3);
  row("sharedread", "own", "lds", W, U, threads, bps, bytes,
      static_cast<double>(bytes) * blocks * passes / s / 1e9, clock_mhz());
}

template <int W>
void shared_unrolls(u32 bytes, int threads, int bps) {
  shared_case<W, 1>(bytes, threads, bps);
  shared_case<W, 2>(bytes, threads, bps);
  shared_case<W, 4>(bytes, threads, bps);
  shared_case<W, 8>(bytes, threads, bps);
}

void shared() {
  for (u32 kb : {16, 32, 48})
    for (const Shape& s : shapes()) {
      shared_unrolls<4>(kb << 10, s.threads, s.bps);
      shared_unrolls<8>(kb << 10, s.threads, s.bps);
      shared_unrolls<16>(kb << 10, s.threads, s.bps);
    }
}

template <int W, int U>
void copy_case(u64 set, int threads, int bps) {
  const u64 n = set / W;
  if (bps > 0) {
    const u32 blocks = env.sms * bps;
    const double s =
        time_best([&] { grid_copy_kernel<W, U><<<blocks, threads>>>(env.a, env.b, n, 1); }, 3, 3);
    row("dramcopy", "grid", "cg/wb", W, U, threads, bps, set, 2.0 * set / s / 1e9, 0);
  } else {
    const u32 blocks = static_cast<u32>((n + u64(threads) * U - 1) / (u64(threads) * U));
    double s =
        time_best([&] { flat_copy_kernel<W, U><<<blocks, threads>>>(env.a, env.b, n); }, 3, 3);
    row("dramcopy", "flat", "cg/wb", W, U, threads, 0, set, 2.0 * set / s / 1e9, 0);
    s = time_best([&] { flat_read_kernel<W, U><<<blocks, threads>>>(env.a, n, env.sink); }, 3, 3);
    row("dramread", "flat", "cg", W, U, threads, 0, set, 1.0 * set / s / 1e9, 0);
  }
}

void dram() {
  const u64 set = env.bytes;
  for (const Shape& s : shapes()) {
    read_case<16, 4, kCg, true>("dramread", "grid", set, 1, s.threads, s.bps, 4e9);
    read_case<16, 8, kCg, true>("dramread", "grid", set, 1, s.threads, s.bps, 4e9);
    read_case<8, 8, kCg, true>("dramread", "grid", set, 1, s.threads, s.bps, 4e9);
    write_family<kWb>("dramwrite", set, s.threads, s.bps, 4e9);
    write_family<kCs>("dramwrite", set, s.threads, s.bps, 4e9);
    copy_case<16, 1>(set, s.threads, s.bps);
    copy_case<16, 2>(set, s.threads, s.bps);
    copy_case<8, 2>(set, s.threads, s.bps);
  }
  for (int t : {128, 256, 512, 1024}) {
    flat_write_case<8, 1, kWb>(set, t);
    flat_write_case<16, 1, kWb>(set, t);
    flat_write_case<16, 2, kWb>(set, t);
    flat_write_case<8, 1, kCs>(set, t);
    flat_write_case<16, 1, kCs>(set, t);
    copy_case<8, 1>(set, t, 0);
    copy_case<16, 1>(set, t, 0);
    copy_case<16, 2>(set, t, 0);
  }
}

__global__ void fill(char* p, u64 n) {
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < n / 4;
       i += u64(gridDim.x) * blockDim.x)
    reinterpret_cast<u32*>(p)[i] = static_cast<u32>(i * 2654435761ULL) | 1u;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  env.sms = prop.multiProcessorCount;
  env.max_threads_sm = prop.maxThreadsPerMultiProcessor;
  env.bytes = u64{2} << 30;
  check(cudaMalloc(&env.a, env.bytes), "malloc");
  check(cudaMalloc(&env.b, env.bytes), "malloc");
  check(cudaMalloc(&env.sink, 64), "malloc");
  check(cudaMalloc(&env.clk, sizeof(Clock)), "malloc");
  check(cudaEventCreate(&env.e0), "event");
  check(cudaEventCreate(&env.e1), "event");
  fill<<<1024, 256>>>(env.a, env.bytes);
  fill<<<1024, 256>>>(env.b, env.bytes);
  check(cudaDeviceSynchronize(), "fill");
  std::printf("# %s, %d SMs\n", prop.name, env.sms);
  std::printf(
      "what,pattern,op,width,unroll,threads,blocks_per_sm,set_bytes,gbps,bytes_per_clk_sm\n");
  if (what == "l2" || what == "all") l2();
  if (what == "l2write" || what == "all") l2write();
  if (what == "l1" || what == "all") l1();
  if (what == "shared" || what == "all") shared();
  if (what == "shared1") {
    shared_unrolls<8>(32 << 10, 256, 2);
    shared_unrolls<8>(32 << 10, 128, 4);
    shared_unrolls<16>(32 << 10, 256, 2);
    shared_unrolls<16>(32 << 10, 512, 4);
  }
  if (what == "dram" || what == "all") dram();
  return 0;
}
