// chain_reference: independent measurements to hold gputopo's latencies and bandwidths against.
// Shares no code with the backend on purpose: plain dependent pointer chains (one thread, total
// cycles over loads, no clock read inside the timed region) and plain stream kernels, the way
// papers and a careful user measure them. Prints CSV rows: what,parameter,value,unit.
//   chain_reference [--device N] [--l2-curve] [--per-load]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using u32 = std::uint32_t;
using u64 = unsigned long long;

void check(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "chain_reference: %s: %s\n", what, cudaGetErrorString(rc));
  std::exit(1);
}

__constant__ u32 c_bank[16384];

enum Load { Ca, Cg, Nc, Plain };

template <int L>
__device__ __forceinline__ u64 load(u64 p) {
  u64 v;
  if (L == Ca) asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  if (L == Cg) asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  if (L == Nc) asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  if (L == Plain) v = *reinterpret_cast<const u64*>(p);
  return v;
}

__device__ u32 g_claimed;
__device__ u32 g_target_sm;

// True for the one block that runs the chain: the first to arrive on the target SM (SM 0 unless
// said otherwise: the SM gputopo measures its single-SM latencies on; the L2 latency differs
// between SMs by up to about 35 cycles).
__device__ bool on_sm0() {
  u32 sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return sm == g_target_sm && atomicCAS(&g_claimed, 0U, 1U) == 0U;
}

// One thread: `warm` untimed loads, then `timed` loads between two clock64 reads.
template <int L>
__global__ void global_chain(u64 start, u64 warm, u64 timed, u64* out) {
  if (!on_sm0()) return;
  u64 p = start;
  for (u64 i = 0; i < warm; ++i) p = load<L>(p);
  const u64 t0 = clock64();
  for (u64 i = 0; i < timed; ++i) p = load<L>(p);
  const u64 t1 = clock64();
  out[0] = t1 - t0;
  out[1] = p;
}

// Per-load timing of the same chain (clock, load, dependent shared store, clock): the fine-grained
// samples gputopo classifies, for comparison.
__global__ void global_per_load(u64 start, u64 warm, u32 n, u32* cycles, u64* out) {
  __shared__ u64 s_sink;
  u64 p = start;
  for (u64 i = 0; i < warm; ++i) p = load<Cg>(p);
  for (u32 i = 0; i < n; ++i) {
    const u32 t0 = clock();
    p = load<Cg>(p);
    s_sink = p;
    const u32 t1 = clock();
    cycles[i] = t1 - t0;
  }
  out[1] = p + s_sink;
}

__global__ void texture_chain(cudaTextureObject_t tex, u32 warm, u32 timed, u64* out) {
  if (!on_sm0()) return;
  int j = 0;
  for (u32 i = 0; i < warm; ++i) j = tex1Dfetch<int>(tex, j);
  const u64 t0 = clock64();
  for (u32 i = 0; i < timed; ++i) j = tex1Dfetch<int>(tex, j);
  const u64 t1 = clock64();
  out[0] = t1 - t0;
  out[1] = static_cast<u64>(j);
}

// The bank holds byte offsets into itself; the start carries %laneid so that the compiler cannot
// prove the chain warp-uniform (the per-thread LDC path of ordinary constant-memory code).
__global__ void constant_chain(u32 warm, u32 timed, u64* out) {
  if (!on_sm0()) return;
  u32 lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  u32 j = (lane - (threadIdx.x & 31)) * 4;
  const char* bank = reinterpret_cast<const char*>(c_bank);
  for (u32 i = 0; i < warm; ++i) j = *reinterpret_cast<const u32*>(bank + j);
  const u64 t0 = clock64();
  for (u32 i = 0; i < timed; ++i) j = *reinterpret_cast<const u32*>(bank + j);
  const u64 t1 = clock64();
  out[0] = t1 - t0;
  out[1] = j;
}

__global__ void shared_chain(u32 elements, u32 stride_words, u32 timed, u64* out) {
  if (!on_sm0()) return;
  extern __shared__ u32 s[];
  const u32 base = static_cast<u32>(__cvta_generic_to_shared(s));
  for (u32 k = 0; k < elements; ++k)
    s[k * stride_words] = base + ((k + 1) % elements) * stride_words * 4;
  u32 p = base;
  for (u32 i = 0; i < elements; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
  const u64 t0 = clock64();
  for (u32 i = 0; i < timed; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
  const u64 t1 = clock64();
  out[0] = t1 - t0;
  out[1] = p;
}

// Bandwidth: grid-stride over 16-byte vectors, U loads in flight per thread (volatile loads, so
// that no pass over a small buffer is folded into another).
__device__ __forceinline__ u32 load_cg16(const uint4* p) {
  u32 a, b, c, d;
  asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "l"(p));
  return a ^ b ^ c ^ d;
}

template <class V, int U>
__global__ void read_kernel(const V* __restrict__ src, u64 n, u32 passes, u32* sink) {
  const u64 stride = u64{gridDim.x} * blockDim.x;
  u32 acc = 0;
  for (u32 p = 0; p < passes; ++p) {
    u64 i = u64{blockIdx.x} * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < n; i += U * stride) {
      u32 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = load_cg16(src + i + u * stride);
#pragma unroll
      for (int u = 0; u < U; ++u) acc ^= v[u];
    }
    for (; i < n; i += stride) acc ^= load_cg16(src + i);
  }
  if (acc == 0x9E3779B9U) sink[0] = acc;
}

template <int U>
__global__ void write_kernel(uint4* __restrict__ dst, u64 n, u32 passes) {
  const u64 stride = u64{gridDim.x} * blockDim.x;
  for (u32 p = 0; p < passes; ++p)
    for (u64 i = u64{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
      dst[i] = make_uint4(u32(i), p, u32(i) ^ p, 7);
}

// Per-SM L1 bandwidth: each block reads its own small buffer (L1 hits) many times.
__global__ void l1_read_kernel(const uint4* __restrict__ src, u32 per_block, u32 passes,
                               u32* sink) {
  const uint4* mine = src + u64{blockIdx.x} * per_block;
  u32 acc = 0;
  for (u32 p = 0; p < passes; ++p)
#pragma unroll 4
    for (u32 i = threadIdx.x; i < per_block; i += blockDim.x) {
      uint4 v;
      asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(mine + i)
                   : "memory");
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  if (acc == 0x9E3779B9U) sink[0] = acc;
}

__global__ void shared_read_kernel(u32 per_block, u32 passes, u32* sink) {
  extern __shared__ uint4 sv[];
  for (u32 i = threadIdx.x; i < per_block; i += blockDim.x) sv[i] = make_uint4(i, i, i, i);
  __syncthreads();
  const u32 base = static_cast<u32>(__cvta_generic_to_shared(sv));
  u32 acc = 0;
  for (u32 p = 0; p < passes; ++p)
#pragma unroll 4
    for (u32 i = threadIdx.x; i < per_block; i += blockDim.x) {
      u32 a, b, c, d;
      asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                   : "r"(base + i * 16));
      acc ^= a ^ b ^ c ^ d;
    }
  if (acc == 0x9E3779B9U) sink[0] = acc;
}

struct Ctx {
  cudaDeviceProp prop{};
  u64* out = nullptr;
  u32* sink = nullptr;
  double clock_mhz = 0;
};

// Lets the next chain run on `sm`.
void claim_for(u32 sm) {
  const u32 zero = 0;
  check(cudaMemcpyToSymbol(g_claimed, &zero, sizeof(zero)), "claim reset");
  check(cudaMemcpyToSymbol(g_target_sm, &sm, sizeof(sm)), "target SM");
}

u64 run_global(Ctx& c, int load_kind, u64 start, u64 warm, u64 timed) {
  claim_for(0);
  const int blocks = 2 * c.prop.multiProcessorCount;
  if (load_kind == Ca) global_chain<Ca><<<blocks, 1>>>(start, warm, timed, c.out);
  if (load_kind == Cg) global_chain<Cg><<<blocks, 1>>>(start, warm, timed, c.out);
  if (load_kind == Nc) global_chain<Nc><<<blocks, 1>>>(start, warm, timed, c.out);
  if (load_kind == Plain) global_chain<Plain><<<blocks, 1>>>(start, warm, timed, c.out);
  check(cudaDeviceSynchronize(), "global chain");
  u64 host[2];
  check(cudaMemcpy(host, c.out, sizeof(host), cudaMemcpyDeviceToHost), "copy");
  return host[0];
}

// A strided pointer cycle over `bytes` at `stride` in `buf`.
u64 build_chain(u64* buf, u64 bytes, u64 stride) {
  const u64 elements = bytes / stride;
  std::vector<u64> host(bytes / 8, 0);
  const auto base = reinterpret_cast<u64>(buf);
  for (u64 k = 0; k < elements; ++k) host[k * stride / 8] = base + ((k + 1) % elements) * stride;
  check(cudaMemcpy(buf, host.data(), bytes, cudaMemcpyHostToDevice), "fill");
  return base;
}

void row(const char* what, double param, double value, const char* unit) {
  std::printf("%s,%.6g,%.4f,%s\n", what, param, value, unit);
  std::fflush(stdout);
}

void latencies(Ctx& c) {
  constexpr u64 kTimed = 1 << 16;
  u64* buf = nullptr;
  check(cudaMalloc(&buf, 64 << 20), "cudaMalloc");
  // L1 and read-only: 16 KiB at 64 B stride, well inside L1.
  u64 start = build_chain(buf, 16 << 10, 64);
  row("latency.l1", 16384, double(run_global(c, Ca, start, 4096, kTimed)) / kTimed, "cycles");
  row("latency.l1plain", 16384, double(run_global(c, Plain, start, 4096, kTimed)) / kTimed,
      "cycles");
  row("latency.readOnly", 16384, double(run_global(c, Nc, start, 4096, kTimed)) / kTimed, "cycles");
  // Texture: 32-bit texel indices, 16 KiB at 64 B stride.
  {
    const u32 elements = (16 << 10) / 64;
    std::vector<int> host((16 << 10) / 4, 0);
    for (u32 k = 0; k < elements; ++k) host[k * 16] = int(((k + 1) % elements) * 16);
    check(cudaMemcpy(buf, host.data(), host.size() * 4, cudaMemcpyHostToDevice), "fill");
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = buf;
    r.res.linear.desc = cudaCreateChannelDesc<int>();
    r.res.linear.sizeInBytes = host.size() * 4;
    cudaTextureDesc t{};
    t.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    check(cudaCreateTextureObject(&tex, &r, &t, nullptr), "texture");
    claim_for(0);
    texture_chain<<<2 * c.prop.multiProcessorCount, 1>>>(tex, 4096, kTimed, c.out);
    check(cudaDeviceSynchronize(), "texture chain");
    u64 host_out[2];
    check(cudaMemcpy(host_out, c.out, sizeof(host_out), cudaMemcpyDeviceToHost), "copy");
    row("latency.texture", 16384, double(host_out[0]) / kTimed, "cycles");
    cudaDestroyTextureObject(tex);
  }
  // Constant: 1 KiB at 64 B stride (inside a 2 KiB constant L1); 16 KiB (past it), on SM 0 and,
  // for the L1.5, on SMs 1-7 as well (latency.constant.sm rows).
  for (u32 bytes : {1024u, 16384u}) {
    const u32 elements = bytes / 64;
    std::vector<u32> bank(16384, 0);
    for (u32 k = 0; k < elements; ++k) bank[k * 16] = ((k + 1) % elements) * 64;
    check(cudaMemcpyToSymbol(c_bank, bank.data(), bank.size() * 4), "constant");
    for (u32 sm = 0; sm < (bytes > 2048 ? 8u : 1u); ++sm) {
      claim_for(sm);
      constant_chain<<<2 * c.prop.multiProcessorCount, 1>>>(4096, kTimed, c.out);
      check(cudaDeviceSynchronize(), "constant chain");
      u64 host_out[2];
      check(cudaMemcpy(host_out, c.out, sizeof(host_out), cudaMemcpyDeviceToHost), "copy");
      row(sm == 0 ? "latency.constant" : "latency.constant.sm", sm == 0 ? bytes : sm,
          double(host_out[0]) / kTimed, "cycles");
    }
  }
  claim_for(0);
  shared_chain<<<2 * c.prop.multiProcessorCount, 1, 4096>>>(4096 / 32, 8, kTimed, c.out);
  check(cudaDeviceSynchronize(), "shared chain");
  u64 host_out[2];
  check(cudaMemcpy(host_out, c.out, sizeof(host_out), cudaMemcpyDeviceToHost), "copy");
  row("latency.shared", 4096, double(host_out[0]) / kTimed, "cycles");
  // L1 miss served by L2: 4 MiB at 128 B stride through ld.ca.
  start = build_chain(buf, 4 << 20, 128);
  row("latency.l1miss", 4 << 20, double(run_global(c, Ca, start, 32768, 32768)) / 32768, "cycles");
  check(cudaFree(buf), "cudaFree");
}

// The L2 curve: chain latency (ld.cg, 128 B stride, one warm pass by the same thread, SM 0) against
// the footprint; with --per-load also the per-load samples' quantiles at each footprint.
void l2_curve(Ctx& c, bool per_load) {
  const u64 l2 = c.prop.l2CacheSize;
  const u64 max_bytes = 3 * l2;
  u64* buf = nullptr;
  check(cudaMalloc(&buf, max_bytes), "cudaMalloc");
  u32* cycles = nullptr;
  constexpr u32 kPerLoad = 4096;
  check(cudaMalloc(&cycles, kPerLoad * 4), "cudaMalloc");
  std::vector<double> fractions;
  for (double f = 0.02; f <= 3.0001; f += (f < 0.3 ? 0.04 : (f < 1.4 ? 0.025 : 0.2)))
    fractions.push_back(f);
  for (double f : fractions) {
    const u64 bytes = u64(f * double(l2)) / 2097152 * 2097152 + 2097152;
    const u64 start = build_chain(buf, bytes, 128);
    const u64 elements = bytes / 128;
    const u64 timed = std::min<u64>(elements, 1 << 17);
    row("l2chain", double(bytes), double(run_global(c, Cg, start, elements, timed)) / timed,
        "cycles");
    if (!per_load) continue;
    global_per_load<<<1, 1>>>(start, elements, kPerLoad, cycles, c.out);
    check(cudaDeviceSynchronize(), "per-load chase");
    std::vector<u32> host(kPerLoad);
    check(cudaMemcpy(host.data(), cycles, kPerLoad * 4, cudaMemcpyDeviceToHost), "copy");
    std::sort(host.begin(), host.end());
    const double mean = std::accumulate(host.begin(), host.end(), 0.0) / kPerLoad;
    std::printf("l2perload,%llu,mean %.1f,p10 %u,p25 %u,p50 %u,p75 %u,p90 %u\n", bytes, mean,
                host[kPerLoad / 10], host[kPerLoad / 4], host[kPerLoad / 2], host[3 * kPerLoad / 4],
                host[9 * kPerLoad / 10]);
  }
  check(cudaFree(buf), "cudaFree");
  check(cudaFree(cycles), "cudaFree");
}

template <class F>
double best_seconds(F&& launch, int reps) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  launch();
  check(cudaDeviceSynchronize(), "warm launch");
  float best = 1e30f;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    check(cudaEventSynchronize(b), "timed launch");
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    best = std::min(best, ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return best / 1e3;
}

template <class V, int U>
double read_tbs(Ctx& c, void* buf, u64 bytes, int blocks_per_sm, int threads) {
  const u64 n = bytes / sizeof(V);
  const u32 passes = u32(std::max<u64>(1, (u64(1) << 30) / bytes));
  const int blocks = blocks_per_sm * c.prop.multiProcessorCount;
  const double s = best_seconds(
      [&] {
        read_kernel<V, U><<<blocks, threads>>>(static_cast<const V*>(buf), n, passes, c.sink);
      },
      5);
  return double(bytes) * passes / s / 1e12;
}

void bandwidths(Ctx& c) {
  const u64 l2 = c.prop.l2CacheSize;
  void* buf = nullptr;
  const u64 dram_bytes = u64(2) << 30;
  check(cudaMalloc(&buf, dram_bytes), "cudaMalloc");
  check(cudaMemset(buf, 1, dram_bytes), "memset");
  // L2 read: plain 16 B loads, a few shapes, buffers of 1/8 .. 1/2 of the L2.
  for (u64 bytes : {l2 / 8, l2 / 4, u64(16) << 20, l2 / 3, l2 / 2}) {
    bytes = bytes / 4096 * 4096;
    double best = 0;
    for (int bps : {1, 2, 4, 8})
      for (int threads : {256, 512, 1024})
        if (bps * threads <= c.prop.maxThreadsPerMultiProcessor) {
          best = std::max(best, read_tbs<uint4, 4>(c, buf, bytes, bps, threads));
          best = std::max(best, read_tbs<uint4, 1>(c, buf, bytes, bps, threads));
        }
    row("bandwidth.l2read", double(bytes), best, "TB/s");
  }
  for (u64 bytes : {l2 / 4, u64(16) << 20, l2 / 2}) {
    bytes = bytes / 4096 * 4096;
    double best = 0;
    for (int bps : {2, 4, 8})
      for (int threads : {256, 512, 1024}) {
        if (bps * threads > c.prop.maxThreadsPerMultiProcessor) continue;
        const u32 passes = u32(std::max<u64>(1, (u64(1) << 30) / bytes));
        const int blocks = bps * c.prop.multiProcessorCount;
        const double s = best_seconds(
            [&] {
              write_kernel<1><<<blocks, threads>>>(static_cast<uint4*>(buf), bytes / 16, passes);
            },
            5);
        best = std::max(best, double(bytes) * passes / s / 1e12);
      }
    row("bandwidth.l2write", double(bytes), best, "TB/s");
  }
  {
    double best = 0;
    for (int bps : {2, 4, 8})
      for (int threads : {256, 512, 1024})
        if (bps * threads <= c.prop.maxThreadsPerMultiProcessor)
          best = std::max(best, read_tbs<uint4, 4>(c, buf, dram_bytes, bps, threads));
    row("bandwidth.dramread", double(dram_bytes), best, "TB/s");
  }
  // Per-SM L1 and shared read bandwidth, bytes per SM clock.
  const int sms = c.prop.multiProcessorCount;
  for (int bps : {1, 2, 4}) {
    const u32 per_block = (16 << 10) / 16;
    const u32 passes = 4096;
    const double s = best_seconds(
        [&] {
          l1_read_kernel<<<sms * bps, 1024 / bps>>>(static_cast<const uint4*>(buf), per_block,
                                                    passes, c.sink);
        },
        5);
    const double bytes = double(per_block) * 16 * passes * sms * bps;
    row("bandwidth.l1.bytesPerClkPerSm", bps, bytes / s / (c.clock_mhz * 1e6) / sms, "B/clk");
    const double s2 = best_seconds(
        [&] {
          shared_read_kernel<<<sms * bps, 1024 / bps, per_block * 16>>>(per_block, passes, c.sink);
        },
        5);
    row("bandwidth.shared.bytesPerClkPerSm", bps, bytes / s2 / (c.clock_mhz * 1e6) / sms, "B/clk");
  }
  check(cudaFree(buf), "cudaFree");
}

// The SM clock the chains ran at: clock64 ticks over globaltimer nanoseconds on a spinning block.
__global__ void clock_rate(u64* out) {
  u64 g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  const u64 c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  } while (g1 - g0 < 20000000);
  out[0] = clock64() - c0;
  out[1] = g1 - g0;
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0;
  bool curve = false;
  bool per_load = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc) device = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--l2-curve")) curve = true;
    if (!std::strcmp(argv[i], "--per-load")) per_load = curve = true;
  }
  check(cudaSetDevice(device), "cudaSetDevice");
  Ctx c;
  check(cudaGetDeviceProperties(&c.prop, device), "cudaGetDeviceProperties");
  check(cudaMalloc(&c.out, 64), "cudaMalloc");
  check(cudaMalloc(&c.sink, 64), "cudaMalloc");
  clock_rate<<<c.prop.multiProcessorCount, 32>>>(c.out);
  check(cudaDeviceSynchronize(), "clock rate");
  u64 host[2];
  check(cudaMemcpy(host, c.out, sizeof(host), cudaMemcpyDeviceToHost), "copy");
  c.clock_mhz = double(host[0]) / double(host[1]) * 1e3;
  std::printf("what,parameter,value,unit\n");
  row("device.smClock", 0, c.clock_mhz, "MHz");
  latencies(c);
  // The L2 miss from device memory: 4 x L2 at 128 B stride, one warm pass.
  {
    const u64 bytes = u64(c.prop.l2CacheSize) * 4 / 2097152 * 2097152;
    u64* buf = nullptr;
    check(cudaMalloc(&buf, bytes), "cudaMalloc");
    const u64 start = build_chain(buf, bytes, 128);
    row("latency.dram", double(bytes),
        double(run_global(c, Cg, start, bytes / 128, 1 << 17)) / (1 << 17), "cycles");
    check(cudaFree(buf), "cudaFree");
  }
  if (curve) l2_curve(c, per_load);
  bandwidths(c);
  return 0;
}
