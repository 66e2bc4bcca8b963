#pragma once

// The instructions a compute request can time. Kept free of other project headers: the CUDA
// kernels (nvcc, C++17) include it too. The order is the wire order: append, never reorder.
#include <cstdint>

namespace gputopo::device {

enum class ComputeOp : std::uint8_t {
  FAdd32,         // add.f32               FADD
  FMul32,         // mul.f32               FMUL
  FFma32,         // fma.rn.f32            FFMA
  DAdd,           // add.f64               DADD
  DFma,           // fma.rn.f64            DFMA
  HFma2,          // fma.rn.f16x2          HFMA2
  BFma2,          // fma.rn.bf16x2         HFMA2.BF16 (sm_80+)
  IAdd3,          // add.u32 (3 sources)   IADD3
  IMad,           // mad.lo.u32            IMAD
  Lop3,           // lop3.b32              LOP3
  Shf,            // shf.l.wrap.b32        SHF
  Rcp,            // rcp.approx.ftz.f32    MUFU.RCP
  Rsq,            // rsqrt.approx.ftz.f32  MUFU.RSQ
  Sin,            // sin.approx.ftz.f32    MUFU.SIN
  Ex2,            // ex2.approx.ftz.f32    MUFU.EX2
  Lg2,            // lg2.approx.ftz.f32    MUFU.LG2
  F2I,            // cvt.rzi.s32.f32       F2I
  I2F,            // cvt.rn.f32.s32        I2F
  F2F,            // cvt f64->f32->f64     F2F (two per step)
  Shfl,           // shfl.sync.bfly        SHFL.BFLY
  Vote,           // setp + vote.ballot    VOTE (with ISETP in the step)
  Match,          // match.any.sync        MATCH.ANY (sm_70+)
  AtomGlobal,     // atom.global.add, one address per thread
  AtomGlobalOne,  // atom.global.add, every thread on one address
  AtomShared,     // atom.shared.add, one address per thread
  AtomSharedOne,  // atom.shared.add, every thread on one address
  // Tensor cores: one warp-wide mma.sync per step, the accumulators chained (D = A B + D).
  MmaF16,   // m16n8k16 f32 += f16 x f16   HMMA.16816.F32 (sm_80+)
  MmaBF16,  // m16n8k16 f32 += bf16 x bf16 HMMA.16816.F32.BF16 (sm_80+)
  MmaTF32,  // m16n8k8 f32 += tf32 x tf32  HMMA.1688.F32.TF32 (sm_80+)
  MmaI8,    // m16n8k32 s32 += s8 x s8     IMMA.16832.S8.S8 (sm_80+)
  MmaF64,   // m8n8k4 f64 += f64 x f64     DMMA.8x8x4 (sm_80+)
  MmaE4M3,  // m16n8k32 f32 += e4m3 x e4m3 QMMA (sm_89; not sm_90, see compute_request.cpp)
  MmaE5M2,  // m16n8k32 f32 += e5m2 x e5m2 QMMA (likewise)
  // Shared-memory loads chained through the loaded address; the request's `arg` is the stride in
  // bytes between a warp's lanes (0: every lane on one address), which sets the bank conflicts.
  LdShared32,  // ld.shared.u32     LDS
  LdShared64,  // ld.shared.v2.u32  LDS.64
  // A block barrier and an add, so that the chain has a value (ptxas folds the adds: about one
  // IMAD or VIADD per two barriers): the barrier probe's op (one chain per thread), not a pipeline.
  BarSync,  // bar.sync 0 + add.u32  BAR.SYNC.DEFER_BLOCKING
  // Divergence: every lane loops over `arg` paths (a power of two up to 32) and runs 16 dependent
  // FFMAs on the path that is its own: lane & (arg - 1) (Spread) or one path for all (Uniform). The
  // divergence probe's ops, one chain per thread: Spread less Uniform is the paths' serialization.
  DivergeSpread,   // FFMA x 16 under a branch in a loop
  DivergeUniform,  // the same, every lane on one path
  // Spread's loop, then 16 dependent FFMAs after it: where the paths rejoin after the loop, the
  // tail runs once a warp; where they stay apart, once a path.
  DivergeJoin,  // FFMA x 16 under a branch in a loop, FFMA x 16 after it
  // Thread-block clusters of 2 (sm_90): the cluster probe's ops.
  ClusterSync,  // barrier.cluster.arrive + wait, and an add
  // ld.shared::cluster chained through the loaded address: each chain on a word of the other
  // block's shared memory (distributed shared memory, on another SM of the GPC).
  DsmemLoad,
  // Hopper's warpgroup MMA (sm_90a): wgmma.mma_async m64n256k16 f32 += bf16 x bf16, operands in
  // shared memory, one a step per warpgroup of 4 warps (a kernel of its own, wgmma_kernel.cu).
  WgmmaBf16,
  // Straight-line code: a loop whose body is `arg` FFMAs over 8 independent chains, generated as
  // PTX and compiled by the driver at run time; a step is 1/32 of a pass over the body. What a
  // pass costs per instruction against the body's size shows the instruction caches (Wong et al.).
  CodeBody,
  // The cluster barrier without its release fence: barrier.cluster.arrive.relaxed and wait, and
  // an add; against clusterSync, what the fence costs.
  ClusterSyncRelaxed,
  // fma.rn.f32 c, a, b, c with a and b registers of the chain's own: three distinct vector
  // registers an instruction, where ffma reads two (its third operand is a uniform register).
  FFma3Reg,  // FFMA Rc, Ra, Rb, Rc
  // wgmmaBf16's stream with FP8: wgmma.mma_async m64n256k32 f32 += e4m3 x e4m3, the same bytes of
  // shared memory an operand (32 one-byte elements a row against 16 two-byte ones).
  WgmmaE4M3,
  // The same with the other FP8 format: m64n256k32 f32 += e5m2 x e5m2.
  WgmmaE5M2,
};
inline constexpr int kComputeOpCount = 47;

// The thread-block-cluster ops, launched in clusters of kComputeClusterBlocks blocks.
inline constexpr std::uint32_t kComputeClusterBlocks = 2;
constexpr bool cluster_op(ComputeOp op) {
  return op == ComputeOp::ClusterSync || op == ComputeOp::DsmemLoad ||
         op == ComputeOp::ClusterSyncRelaxed;
}

// The warpgroup MMA ops, run by wgmma_kernel.cu in warpgroups of 4 warps.
constexpr bool wgmma_op(ComputeOp op) {
  return op == ComputeOp::WgmmaBf16 || op == ComputeOp::WgmmaE4M3 || op == ComputeOp::WgmmaE5M2;
}

// Ops with a loop-free kernel for chains of one a thread (the CUDA backend's latency kernel): not
// those whose step is itself a loop (the divergence ops gain nothing from one, at ten times the
// code), nor those that kernels of their own run.
constexpr bool has_straight_kernel(ComputeOp op) {
  return !(op == ComputeOp::DivergeSpread || op == ComputeOp::DivergeUniform ||
           op == ComputeOp::DivergeJoin || op == ComputeOp::CodeBody || wgmma_op(op));
}

}  // namespace gputopo::device
