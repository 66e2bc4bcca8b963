#pragma once

// One dependent step of each compute op, in inline PTX so that the compiler keeps exactly that
// instruction (tests/data/compute/ holds the SASS each kernel compiled to, and a test checks it).
// Every op gives its chain state T, make() (the state of one chain of one thread, from operand
// bits the compiler cannot know), step() (one dependent instruction, or the documented pair) and
// bits() (the state folded into a word that is stored, so nothing can be dropped).
#include <cstdint>

#include "device/compute_op.hpp"

namespace gputopo::device::cuda {

// Operands every step may read besides its chain: runtime values, so nothing is constant-folded.
struct Operands {
  float f1, f2;
  double d1, d2;
  std::uint32_t u1, u2;
  std::uint32_t shared_base;   // the block's dynamic shared memory (shared-window address)
  std::uint32_t* global_base;  // the launch's atomic words
  std::uint32_t thread;        // thread index in the launch
  std::uint32_t threads;       // threads in the launch
  std::uint32_t address_mask;  // atomics: the word of thread t is t & address_mask
  std::uint32_t arg;           // the request's arg (shared loads: the lanes' stride in bytes)
};

template <ComputeOp Op>
struct OpStep;

struct F32Chain {
  using T = float;
  static __device__ __forceinline__ T make(const Operands& o, int chain) {
    return o.f1 + static_cast<float>(chain + static_cast<int>(o.thread & 7));
  }
  static __device__ __forceinline__ std::uint32_t bits(T x) { return __float_as_uint(x); }
};

struct F64Chain {
  using T = double;
  static __device__ __forceinline__ T make(const Operands& o, int chain) {
    return o.d1 + static_cast<double>(chain + static_cast<int>(o.thread & 7));
  }
  static __device__ __forceinline__ std::uint32_t bits(T x) {
    const auto v = static_cast<std::uint64_t>(__double_as_longlong(x));
    return static_cast<std::uint32_t>(v ^ (v >> 32));
  }
};

// A chain and two factors of its own, so that each FFMA reads three distinct vector registers.
struct F32x3Chain {
  struct T {
    float c, a, b;
  };
  static __device__ __forceinline__ T make(const Operands& o, int chain) {
    const auto lane = static_cast<float>(o.thread & 7);
    return {o.f1 + static_cast<float>(chain) + lane,
            o.f1 + 0.25f * static_cast<float>(chain) + lane,
            o.f2 + 0.5f * static_cast<float>(chain) + lane};
  }
  static __device__ __forceinline__ std::uint32_t bits(T x) { return __float_as_uint(x.c); }
};

struct U32Chain {
  using T = std::uint32_t;
  static __device__ __forceinline__ T make(const Operands& o, int chain) {
    return o.u1 + static_cast<std::uint32_t>(chain) + o.thread;
  }
  static __device__ __forceinline__ std::uint32_t bits(T x) { return x; }
};

#define GPUTOPO_STEP(OP, BASE, BODY)                                               \
  template <>                                                                      \
  struct OpStep<ComputeOp::OP> : BASE {                                            \
    static __device__ __forceinline__ void step(T& x, const Operands& o) { BODY; } \
  };

GPUTOPO_STEP(FAdd32, F32Chain, asm volatile("add.f32 %0, %0, %1;" : "+f"(x) : "f"(o.f1)))
GPUTOPO_STEP(FMul32, F32Chain, asm volatile("mul.f32 %0, %0, %1;" : "+f"(x) : "f"(o.f1)))
GPUTOPO_STEP(FFma32, F32Chain,
             asm volatile("fma.rn.f32 %0, %0, %1, %2;"
                          : "+f"(x)
                          : "f"(o.f1), "f"(o.f2)))
GPUTOPO_STEP(FFma3Reg, F32x3Chain,
             asm volatile("fma.rn.f32 %0, %1, %2, %0;"
                          : "+f"(x.c)
                          : "f"(x.a), "f"(x.b)))
GPUTOPO_STEP(DAdd, F64Chain, asm volatile("add.f64 %0, %0, %1;" : "+d"(x) : "d"(o.d1)))
GPUTOPO_STEP(DFma, F64Chain,
             asm volatile("fma.rn.f64 %0, %0, %1, %2;"
                          : "+d"(x)
                          : "d"(o.d1), "d"(o.d2)))
GPUTOPO_STEP(HFma2, U32Chain,
             asm volatile("fma.rn.f16x2 %0, %0, %1, %2;"
                          : "+r"(x)
                          : "r"(o.u1), "r"(o.u2)))
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
GPUTOPO_STEP(BFma2, U32Chain,
             asm volatile("fma.rn.bf16x2 %0, %0, %1, %2;"
                          : "+r"(x)
                          : "r"(o.u1), "r"(o.u2)))
#else
// The host refuses the op below compute capability 8.0; the kernel only has to compile.
GPUTOPO_STEP(BFma2, U32Chain, x ^= o.u1)
#endif
GPUTOPO_STEP(IAdd3, U32Chain,
             asm volatile("{.reg .u32 t; add.u32 t, %0, %1; add.u32 %0, t, %2;}"
                          : "+r"(x)
                          : "r"(o.u1), "r"(o.u2)))
GPUTOPO_STEP(IMad, U32Chain,
             asm volatile("mad.lo.u32 %0, %0, %1, %2;"
                          : "+r"(x)
                          : "r"(o.u1), "r"(o.u2)))
// LUT 0x6a: (a & b) ^ c, which no number of applications reduces to fewer.
GPUTOPO_STEP(Lop3, U32Chain,
             asm volatile("lop3.b32 %0, %0, %1, %2, 0x6a;"
                          : "+r"(x)
                          : "r"(o.u1), "r"(o.u2)))
GPUTOPO_STEP(Shf, U32Chain,
             asm volatile("shf.l.wrap.b32 %0, %0, %1, %2;"
                          : "+r"(x)
                          : "r"(o.u1), "r"(o.u2)))
// rcp of |x|: ptxas folds rcp(rcp(x)) to x, not rcp(|rcp(|x|)|); the |.| is an operand modifier.
GPUTOPO_STEP(Rcp, F32Chain,
             asm volatile("{.reg .f32 t; abs.ftz.f32 t, %0; rcp.approx.ftz.f32 %0, t;}"
                          : "+f"(x)))
GPUTOPO_STEP(Rsq, F32Chain, asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x)))
GPUTOPO_STEP(Sin, F32Chain, asm volatile("sin.approx.ftz.f32 %0, %0;" : "+f"(x)))
GPUTOPO_STEP(Ex2, F32Chain, asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x)))
GPUTOPO_STEP(Lg2, F32Chain, asm volatile("lg2.approx.ftz.f32 %0, %0;" : "+f"(x)))
// The conversions chain through a reinterpretation of the result, which costs no instruction.
GPUTOPO_STEP(F2I, F32Chain,
             asm volatile("{.reg .s32 t; cvt.rzi.s32.f32 t, %0; mov.b32 %0, t;}"
                          : "+f"(x)))
GPUTOPO_STEP(I2F, U32Chain,
             asm volatile("{.reg .f32 t; cvt.rn.f32.s32 t, %0; mov.b32 %0, t;}"
                          : "+r"(x)))
GPUTOPO_STEP(F2F, F64Chain,
             asm volatile("{.reg .f32 t; cvt.rn.f32.f64 t, %0; cvt.f64.f32 %0, t;}"
                          : "+d"(x)))
GPUTOPO_STEP(Shfl, U32Chain,
             asm volatile("shfl.sync.bfly.b32 %0, %0, %1, 0x1f, -1;"
                          : "+r"(x)
                          : "r"(o.u1 & 31)))
GPUTOPO_STEP(Vote, U32Chain,
             asm volatile("{.reg .pred p; setp.ne.u32 p, %0, %1; vote.sync.ballot.b32 %0, p, -1;}"
                          : "+r"(x)
                          : "r"(o.u2)))
GPUTOPO_STEP(Match, U32Chain, asm volatile("match.any.sync.b32 %0, %0, -1;" : "+r"(x)))
// Every thread of the block meets at the barrier, then adds: the add keeps a value in the chain.
GPUTOPO_STEP(BarSync, U32Chain,
             asm volatile("bar.sync 0;\n\tadd.u32 %0, %0, %1;"
                          : "+r"(x)
                          : "r"(o.u1)
                          : "memory"))

#undef GPUTOPO_STEP

// Atomics chain through the value added: the next atomic adds what the previous one returned.
struct AtomChain {
  struct T {
    std::uint32_t v;
    std::uint64_t address;  // generic address of the word (global), or shared-window address
  };
  static __device__ __forceinline__ std::uint32_t bits(const T& x) { return x.v; }
};

struct AtomGlobalChain : AtomChain {
  static __device__ __forceinline__ T make(const Operands& o, int chain) {
    const std::uint64_t word =
        static_cast<std::uint64_t>(chain) * o.threads + (o.thread & o.address_mask);
    return {o.u1 & 1, reinterpret_cast<std::uint64_t>(o.global_base + word)};
  }
  static __device__ __forceinline__ void step(T& x, const Operands&) {
    asm volatile("atom.global.add.u32 %0, [%1], %0;" : "+r"(x.v) : "l"(x.address) : "memory");
  }
};

struct AtomSharedChain : AtomChain {
  static __device__ __forceinline__ T make(const Operands& o, int chain) {
    const std::uint32_t word =
        static_cast<std::uint32_t>(chain) * blockDim.x + (threadIdx.x & o.address_mask);
    return {o.u1 & 1, o.shared_base + 4 * word};
  }
  static __device__ __forceinline__ void step(T& x, const Operands&) {
    asm volatile("atom.shared.add.u32 %0, [%1], %0;"
                 : "+r"(x.v)
                 : "r"(static_cast<std::uint32_t>(x.address))
                 : "memory");
  }
};

// Shared loads: lane l reads at l x stride; the word there holds its own address, so each load's
// address is what the previous one returned.
struct SharedLoadChain : U32Chain {
  static __device__ __forceinline__ T make(const Operands& o, int) {
    return o.shared_base + (threadIdx.x & 31) * o.arg;
  }
};
template <>
struct OpStep<ComputeOp::LdShared32> : SharedLoadChain {
  static __device__ __forceinline__ void step(T& x, const Operands&) {
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(x) : : "memory");
  }
};
template <>
struct OpStep<ComputeOp::LdShared64> : SharedLoadChain {
  static __device__ __forceinline__ void step(T& x, const Operands&) {
    // Both words are used (the next address is the smaller, the low one), or ptxas would narrow the
    // load to 32 bits.
    asm volatile("{.reg .u32 h; ld.shared.v2.u32 {%0, h}, [%0]; min.u32 %0, %0, h;}"
                 : "+r"(x)
                 :
                 : "memory");
  }
};

template <>
struct OpStep<ComputeOp::AtomGlobal> : AtomGlobalChain {};
template <>
struct OpStep<ComputeOp::AtomGlobalOne> : AtomGlobalChain {};
template <>
struct OpStep<ComputeOp::AtomShared> : AtomSharedChain {};
template <>
struct OpStep<ComputeOp::AtomSharedOne> : AtomSharedChain {};

// Tensor cores: one warp-wide mma.sync per step; its accumulators are the chain (D = A B + D), the
// A and B fragments are operand bits, the same registers repeated. R accumulator registers of
// 32 bits (float or s32: PTX takes a .b32 register for either) or 64 bits.
template <int R>
struct Mma32Chain {
  struct T {
    std::uint32_t d[R];
  };
  static __device__ __forceinline__ T make(const Operands& o, int chain) {
    T x;
#pragma unroll
    for (int i = 0; i < R; ++i) x.d[i] = (o.thread & 7) + static_cast<std::uint32_t>(chain + i);
    return x;
  }
  static __device__ __forceinline__ std::uint32_t bits(const T& x) {
    std::uint32_t v = 0;
#pragma unroll
    for (int i = 0; i < R; ++i) v ^= x.d[i];
    return v;
  }
};

#define GPUTOPO_MMA4(OP, SHAPE_TYPES)                                                 \
  template <>                                                                         \
  struct OpStep<ComputeOp::OP> : Mma32Chain<4> {                                      \
    static __device__ __forceinline__ void step(T& x, const Operands& o) {            \
      asm volatile("mma.sync.aligned." SHAPE_TYPES                                    \
                   " {%0, %1, %2, %3}, {%4, %5, %4, %5}, {%4, %5}, {%0, %1, %2, %3};" \
                   : "+r"(x.d[0]), "+r"(x.d[1]), "+r"(x.d[2]), "+r"(x.d[3])           \
                   : "r"(o.u1), "r"(o.u2));                                           \
    }                                                                                 \
  };
// Placeholder for architectures without the instruction: the host refuses the op there.
#define GPUTOPO_MMA_ABSENT(OP)                                                               \
  template <>                                                                                \
  struct OpStep<ComputeOp::OP> : Mma32Chain<4> {                                             \
    static __device__ __forceinline__ void step(T& x, const Operands& o) { x.d[0] ^= o.u1; } \
  };

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
GPUTOPO_MMA4(MmaF16, "m16n8k16.row.col.f32.f16.f16.f32")
GPUTOPO_MMA4(MmaBF16, "m16n8k16.row.col.f32.bf16.bf16.f32")
GPUTOPO_MMA4(MmaTF32, "m16n8k8.row.col.f32.tf32.tf32.f32")
GPUTOPO_MMA4(MmaI8, "m16n8k32.row.col.s32.s8.s8.s32")
template <>
struct OpStep<ComputeOp::MmaF64> : F64Chain {
  using T = double2;
  static __device__ __forceinline__ T make(const Operands& o, int chain) {
    return {F64Chain::make(o, chain), F64Chain::make(o, chain + 1)};
  }
  static __device__ __forceinline__ std::uint32_t bits(T x) {
    return F64Chain::bits(x.x) ^ F64Chain::bits(x.y);
  }
  static __device__ __forceinline__ void step(T& x, const Operands& o) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(x.x), "+d"(x.y)
                 : "d"(o.d1), "d"(o.d2));
  }
};
#else
GPUTOPO_MMA_ABSENT(MmaF16)
GPUTOPO_MMA_ABSENT(MmaBF16)
GPUTOPO_MMA_ABSENT(MmaTF32)
GPUTOPO_MMA_ABSENT(MmaI8)
GPUTOPO_MMA_ABSENT(MmaF64)
#endif
// FP8 mma.sync: a tensor instruction on sm_89 and sm_100 on; ptxas emulates it on sm_90, which the
// host refuses (compute_request.cpp), so the sm_90 kernel is the placeholder.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1000)
GPUTOPO_MMA4(MmaE4M3, "m16n8k32.row.col.f32.e4m3.e4m3.f32")
GPUTOPO_MMA4(MmaE5M2, "m16n8k32.row.col.f32.e5m2.e5m2.f32")
#else
GPUTOPO_MMA_ABSENT(MmaE4M3)
GPUTOPO_MMA_ABSENT(MmaE5M2)
#endif
#undef GPUTOPO_MMA4
#undef GPUTOPO_MMA_ABSENT

// Every lane loops over the arg paths and runs 16 dependent FFMAs on its own one: lane & (arg - 1)
// when Spread, one path for every lane otherwise. FFMAs, unlike integer adds, are not folded.
template <bool Spread>
struct DivergeChain : F32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) {
    // The same expression from a runtime word either way, so that both compile to the same loop:
    // the lane's index (Spread), or u1, whose low bits are 1 (every lane on one path).
    const std::uint32_t mine = ((Spread ? o.thread : o.u1) & 31) & (o.arg - 1);
    for (std::uint32_t p = 0; p < o.arg; ++p) {
      if (p == mine) {
#pragma unroll
        for (int i = 0; i < 16; ++i)
          asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(o.f1), "f"(o.f2));
      }
    }
  }
};
template <>
struct OpStep<ComputeOp::DivergeSpread> : DivergeChain<true> {};
template <>
struct OpStep<ComputeOp::DivergeUniform> : DivergeChain<false> {};
template <>
struct OpStep<ComputeOp::DivergeJoin> : DivergeChain<true> {
  static __device__ __forceinline__ void step(T& x, const Operands& o) {
    DivergeChain<true>::step(x, o);
#pragma unroll
    for (int i = 0; i < 16; ++i)
      asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(o.f1), "f"(o.f2));
  }
};

// Thread-block clusters (sm_90): a cluster-wide barrier, the rank of the block in its cluster,
// and the address under which the cluster reaches a word of a block's shared memory.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ __forceinline__ void cluster_barrier() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}
__device__ __forceinline__ std::uint32_t cluster_rank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ std::uint32_t cluster_address(std::uint32_t shared, std::uint32_t rank) {
  std::uint32_t a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(shared), "r"(rank));
  return a;
}
template <>
struct OpStep<ComputeOp::ClusterSync> : U32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) {
    cluster_barrier();
    x += o.u1;
  }
};
// The arrive without release semantics (no MEMBAR before it); the wait keeps its acquire.
template <>
struct OpStep<ComputeOp::ClusterSyncRelaxed> : U32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::
                     : "memory");
    x += o.u1;
  }
};
// Chain `chain` of a thread runs on word threadIdx + chain x blockDim of the other block of its
// pair, which holds its own cluster address: each load waits for the one before.
template <>
struct OpStep<ComputeOp::DsmemLoad> : U32Chain {
  static __device__ __forceinline__ T make(const Operands& o, int chain) {
    const std::uint32_t word = threadIdx.x + static_cast<std::uint32_t>(chain) * blockDim.x;
    return cluster_address(o.shared_base + 4 * word, cluster_rank() ^ 1U);
  }
  static __device__ __forceinline__ void step(T& x, const Operands&) {
    asm volatile("ld.shared::cluster.u32 %0, [%0];" : "+r"(x) : : "memory");
  }
};
#else
__device__ __forceinline__ void cluster_barrier() {}
__device__ __forceinline__ std::uint32_t cluster_rank() { return 0; }
__device__ __forceinline__ std::uint32_t cluster_address(std::uint32_t shared, std::uint32_t) {
  return shared;
}
// Placeholders: the host refuses the cluster ops below sm_90.
template <>
struct OpStep<ComputeOp::ClusterSync> : U32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) { x += o.u1; }
};
template <>
struct OpStep<ComputeOp::ClusterSyncRelaxed> : U32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) { x += o.u1; }
};
template <>
struct OpStep<ComputeOp::DsmemLoad> : U32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) { x ^= o.u1; }
};
#endif

// wgmma and the code body run in kernels of their own (wgmma_kernel.cu, code_body.cpp); the
// generic kernel's instances are never launched.
template <>
struct OpStep<ComputeOp::WgmmaBf16> : U32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) { x ^= o.u1; }
};
template <>
struct OpStep<ComputeOp::WgmmaE4M3> : U32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) { x ^= o.u1; }
};
template <>
struct OpStep<ComputeOp::WgmmaE5M2> : U32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) { x ^= o.u1; }
};
template <>
struct OpStep<ComputeOp::CodeBody> : U32Chain {
  static __device__ __forceinline__ void step(T& x, const Operands& o) { x ^= o.u2; }
};

// Ops whose steps every thread of a block must take alike: the kernel decides to stop at its
// deadline for the whole block at once.
template <ComputeOp Op>
inline constexpr bool kBlockUniform = Op == ComputeOp::BarSync;
// Ops launched in clusters of two blocks: every block of a cluster takes every step (a block
// stopping early would leave its pair at the barrier, or reading freed shared memory), so these
// kernels run to the end; their chains are short.
template <ComputeOp Op>
inline constexpr bool kCluster = cluster_op(Op);

}  // namespace gputopo::device::cuda
