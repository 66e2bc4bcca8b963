// A stand-alone experiment behind three of gputopo's compute choices (docs/compute.md), not part
// of the tool: what a loop costs a dependent chain against straight code (why latency chains run
// loop-free), FFMA issue from one warp by which registers ptxas chose (registerReadsPerClk), and
// the cluster barrier with and without its release fence (clusterSyncRelaxed).
// Build here:  nvcc -std=c++17 -O3 -arch=sm_90 -cudart static -o chain-shapes chain-shapes.cu
// Run on the GPU; the registers each kernel reads: cuobjdump -sass chain-shapes, then
// scripts/experiments/register-models.py LISTING OUTPUT. Output of 2026-11-26 on an H100:
// docs/results/h100/compute/chain-shapes.txt.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

__device__ __forceinline__ uint64_t clk() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

struct FfmaU {  // FFMA R, R, UR, R (as the project)
  using T = float;
  static __device__ __forceinline__ void step(T& x, T a, T b) {
    asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
  }
};
struct Dfma {
  using T = double;
  static __device__ __forceinline__ void step(T& x, T a, T b) {
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(a), "d"(b));
  }
};
struct Ex2 {
  using T = float;
  static __device__ __forceinline__ void step(T& x, T, T) {
    asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x));
  }
};
struct Iadd {
  using T = float;
  static __device__ __forceinline__ void step(T& x, T a, T b) {
    asm volatile(
        "{.reg .u32 t,u,v,w; mov.b32 u,%0; mov.b32 v,%1; mov.b32 w,%2; add.u32 t, u, v; add.u32 u, "
        "t, w; mov.b32 %0,u;}"
        : "+f"(x)
        : "f"(a), "f"(b));
  }
};

// mode 0: loop of U steps, deadline-like check every 64 trips (the project's shape)
// mode 1: loop of U steps, no check
template <class Op, int U, int Mode>
__global__ void loopk(typename Op::T a0, typename Op::T b0, int trips, uint64_t* out, float* sink,
                      uint64_t limit) {
  using T = typename Op::T;
  T a = a0, b = b0;
  if (Mode == 2) {  // per-thread operands: vector registers
    a = a0 + (T)(threadIdx.x & 1);
    b = b0 + (T)(threadIdx.x & 2);
  }
  T x = a0 + (T)threadIdx.x;
  uint64_t g0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  __syncthreads();
  uint64_t s = clk();
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int u = 0; u < U; ++u) Op::step(x, a, b);
    if (Mode != 1 && t % 64 == 63) {
      uint64_t g;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
      if (g - g0 > limit) break;
    }
  }
  uint64_t e = clk();
  sink[threadIdx.x] = (float)x;
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = e - s;
}

template <class Op, int N>
__global__ void straight(typename Op::T a0, typename Op::T b0, uint64_t* out, float* sink) {
  using T = typename Op::T;
  T a = a0, b = b0;
  T x = a0 + (T)threadIdx.x;
  __syncthreads();
  uint64_t s = clk();
#pragma unroll
  for (int u = 0; u < N; ++u) Op::step(x, a, b);
  uint64_t e = clk();
  sink[threadIdx.x] = (float)x;
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = e - s;
}

// ILP chains in one warp (warp count from launch): independent FFMAs.
template <int Ilp>
__global__ void ilpk(float a0, float b0, int trips, uint64_t* out, float* sink) {
  float c[Ilp];
#pragma unroll
  for (int j = 0; j < Ilp; ++j) c[j] = a0 + j + threadIdx.x;
  __syncthreads();
  uint64_t s = clk();
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int u = 0; u < 32; ++u)
#pragma unroll
      for (int j = 0; j < Ilp; ++j) FfmaU::step(c[j], a0, b0);
  }
  uint64_t e = clk();
  float f = 0;
#pragma unroll
  for (int j = 0; j < Ilp; ++j) f += c[j];
  sink[threadIdx.x] = f;
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = e - s;
}

// Register banks: 8 independent FFMA chains of one warp, each chain read as the addend (so every
// FFMA has a live result), the two factors per-thread registers r[j] and r[(j + K) % 16] (K = 0:
// the chain itself twice). The SASS says which registers ptxas chose.
template <int K>
__global__ void bankk(float a0, int trips, uint64_t* out, float* sink) {
  float r[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) r[j] = a0 * (j + 1) + threadIdx.x;
  float c[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) c[j] = a0 + j;
  __syncthreads();
  uint64_t s = clk();
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int u = 0; u < 16; ++u)
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        if (K == 0)
          asm volatile("fma.rn.f32 %0, %0, %0, %1;" : "+f"(c[j]) : "f"(r[j]));
        else
          asm volatile("fma.rn.f32 %0, %1, %2, %0;" : "+f"(c[j]) : "f"(r[j]), "f"(r[(j + K) % 16]));
      }
  }
  uint64_t e = clk();
  float f = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) f += c[j];
#pragma unroll
  for (int j = 0; j < 16; ++j) f += r[j];
  sink[threadIdx.x] = f;
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = e - s;
}

template <int Relaxed>
__global__ void __cluster_dims__(2, 1, 1) clusterk(int trips, uint64_t* out) {
  __syncthreads();
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
  uint64_t s = clk();
  for (int t = 0; t < trips; ++t) {
    if (Relaxed == 1)
      asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::
                       : "memory");
    else if (Relaxed == 0)
      asm volatile(
          "barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
              : "memory");
    else if (Relaxed == 2)
      asm volatile("fence.acq_rel.cluster;" ::: "memory");
    else
      asm volatile("bar.sync 0;" ::: "memory");
  }
  uint64_t e = clk();
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
  if (threadIdx.x % 32 == 0) out[blockIdx.x * 32 + threadIdx.x / 32] = e - s;
}

static constexpr float a = 1.0001f, b = 0.0001f;
static constexpr uint64_t lim = 1000000000ull;
static uint64_t* d_out;
static float* d_sink;

static double run1(void (*launch)(int), int trips, int warps = 1) {
  launch(trips);
  cudaDeviceSynchronize();
  uint64_t h[64];
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    launch(trips);
    cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost);
    double m = 0;
    for (int w = 0; w < warps; ++w) m = h[w] > m ? h[w] : m;
    best = m < best ? m : best;
  }
  return best;
}

#define SLOPE(name, steps_per_trip, LAUNCH)                                          \
  {                                                                                  \
    auto L = [](int t) { LAUNCH; };                                                  \
    double s = run1(L, 64), l = run1(L, 192);                                        \
    printf("%-34s %8.3f cycles/step\n", name, (l - s) / (128.0 * (steps_per_trip))); \
  }

int main() {
  cudaMalloc(&d_out, 64 * 8 * 2);
  cudaMalloc(&d_sink, 4096 * 4);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("device %s\n", p.name);
  printf("== loop shapes (1 warp, 1 chain)\n");
  SLOPE("ffma U32 check (project)", 32,
        (loopk<FfmaU, 32, 0><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("ffma U32 nocheck", 32, (loopk<FfmaU, 32, 1><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("ffma U64 check", 64, (loopk<FfmaU, 64, 0><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("ffma U128 check", 128, (loopk<FfmaU, 128, 0><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("ffma U32 vector operands", 32,
        (loopk<FfmaU, 32, 2><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("dfma U32 check", 32, (loopk<Dfma, 32, 0><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("dfma U128 check", 128, (loopk<Dfma, 128, 0><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("ex2 U32 check", 32, (loopk<Ex2, 32, 0><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("ex2 U128 check", 128, (loopk<Ex2, 128, 0><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("iadd3 U32 check", 32, (loopk<Iadd, 32, 0><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  SLOPE("iadd3 U128 check", 128, (loopk<Iadd, 128, 0><<<1, 32>>>(a, b, t, d_out, d_sink, lim)));
  {
    auto s = [](int) { straight<FfmaU, 256><<<1, 32>>>(a, b, d_out, d_sink); };
    auto l = [](int) { straight<FfmaU, 1024><<<1, 32>>>(a, b, d_out, d_sink); };
    printf("%-34s %8.3f cycles/step (256: %.0f, 1024: %.0f)\n", "ffma straight 256..1024",
           (run1(l, 0) - run1(s, 0)) / 768.0, run1(s, 0), run1(l, 0));
    auto s2 = [](int) { straight<Dfma, 256><<<1, 32>>>(a, b, d_out, d_sink); };
    auto l2 = [](int) { straight<Dfma, 1024><<<1, 32>>>(a, b, d_out, d_sink); };
    printf("%-34s %8.3f cycles/step\n", "dfma straight 256..1024",
           (run1(l2, 0) - run1(s2, 0)) / 768.0);
    auto s3 = [](int) { straight<Ex2, 256><<<1, 32>>>(a, b, d_out, d_sink); };
    auto l3 = [](int) { straight<Ex2, 1024><<<1, 32>>>(a, b, d_out, d_sink); };
    printf("%-34s %8.3f cycles/step\n", "ex2 straight 256..1024",
           (run1(l3, 0) - run1(s3, 0)) / 768.0);
  }
  printf("== chains per warp, warps (FFMA, U32 loop): cycles per step of each chain\n");
  SLOPE("ilp1 1 warp", 32, (ilpk<1><<<1, 32>>>(a, b, t, d_out, d_sink)));
  SLOPE("ilp2 1 warp", 32, (ilpk<2><<<1, 32>>>(a, b, t, d_out, d_sink)));
  SLOPE("ilp4 1 warp", 32, (ilpk<4><<<1, 32>>>(a, b, t, d_out, d_sink)));
  SLOPE("ilp8 1 warp", 32, (ilpk<8><<<1, 32>>>(a, b, t, d_out, d_sink)));
  {
    auto L = [](int t) { ilpk<1><<<1, 160>>>(a, b, t, d_out, d_sink); };
    double s = run1(L, 64, 5), l = run1(L, 192, 5);
    printf("%-34s %8.3f cycles/step\n", "ilp1 5 warps (0 and 4 share SP)", (l - s) / (128.0 * 32));
    auto L2 = [](int t) { ilpk<1><<<1, 288>>>(a, b, t, d_out, d_sink); };
    s = run1(L2, 64, 9), l = run1(L2, 192, 9);
    printf("%-34s %8.3f cycles/step\n", "ilp1 9 warps (3 on SP0)", (l - s) / (128.0 * 32));
    auto L3 = [](int t) { ilpk<1><<<1, 64>>>(a, b, t, d_out, d_sink); };
    s = run1(L3, 64, 2), l = run1(L3, 192, 2);
    printf("%-34s %8.3f cycles/step\n", "ilp1 2 warps (two SPs)", (l - s) / (128.0 * 32));
  }
  printf("== register banks: 1 warp, 8 independent FFMA chains, cycles per FFMA\n");
#define BANK(V) SLOPE("bank variant K=" #V, 128, (bankk<V><<<1, 32>>>(a, t, d_out, d_sink)))
  BANK(0);
  BANK(1);
  BANK(2);
  BANK(3);
  BANK(4);
  BANK(5);
  BANK(6);
  BANK(7);
  BANK(8);
  BANK(9);
  BANK(10);
  BANK(11);
  BANK(12);
  BANK(13);
  BANK(14);
  BANK(15);
  printf("== cluster barrier (clusters of 2), cycles per barrier\n");
  for (int w : {1, 32}) {
    auto run = [&](auto L, const char* n) {
      L(1);
      cudaDeviceSynchronize();
      uint64_t h[64];
      double sp[2];
      int tr[2] = {100, 400};
      for (int i = 0; i < 2; ++i) {
        double best = 1e30;
        for (int r = 0; r < 5; ++r) {
          L(tr[i]);
          cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost);
          double m = 0;
          for (int k = 0; k < 64; ++k)
            if (k % 32 < w) m = h[k] > m ? h[k] : m;
          best = m < best ? m : best;
        }
        sp[i] = best;
      }
      printf("%-34s warps %2d %8.1f\n", n, w, (sp[1] - sp[0]) / 300.0);
    };
    static int W;
    W = w;
    run([](int t) { clusterk<0><<<2, 32 * W>>>(t, d_out); }, "cluster release/acquire");
    run([](int t) { clusterk<1><<<2, 32 * W>>>(t, d_out); }, "cluster relaxed");
    run([](int t) { clusterk<2><<<2, 32 * W>>>(t, d_out); }, "fence.acq_rel.cluster only");
    run([](int t) { clusterk<3><<<2, 32 * W>>>(t, d_out); }, "bar.sync 0 (block)");
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("status %s\n", cudaGetErrorString(e));
  return 0;
}
