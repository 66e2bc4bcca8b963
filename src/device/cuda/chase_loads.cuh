#pragma once

// The loads a chase can time, one policy per memory space, in inline PTX so that the compiler
// keeps each load where it is written. A policy is built from the job's array description.
// address(j) turns a word position into what the load takes; load(address) returns the
// position stored there. The timed chase computes the address before its first clock read, so
// that only the load itself (and the fixed timing overhead) lies between the two reads.
// A chain-timed array holds instead what the load takes next (chain_start(), then
// chain_next(v)): one load instruction per step, with no address arithmetic in the chain.
#include <cstdint>

#include "device/cuda/chase_job.hpp"

// The bank constant-space chases read, at global scope so that inline PTX can name it. Defined
// here: include this header from one translation unit only (without -rdc, a __constant__
// variable cannot be shared between units).
__constant__ std::uint32_t gputopo_constant_bank[16384];

namespace gputopo::device::cuda {

using Wide = unsigned long long;  // 64-bit index words (arrays above 16 GiB)

// Keeps an address computation ahead of the code that follows (an empty volatile asm using it).
__device__ __forceinline__ void pin(std::uint32_t a) { asm volatile("" ::"r"(a)); }
__device__ __forceinline__ void pin(std::uint64_t a) { asm volatile("" ::"l"(a)); }

#define GPUTOPO_GLOBAL_LOAD(NAME, QUALIFIER)                                                 \
  struct NAME {                                                                              \
    std::uint64_t base;                                                                      \
    static __device__ NAME make(const ChaseArray& a, std::uint32_t) { return {a.base}; }     \
    __device__ __forceinline__ std::uint64_t address(std::uint32_t j) const {                \
      return base + std::uint64_t{j} * 4;                                                    \
    }                                                                                        \
    __device__ __forceinline__ std::uint64_t address(Wide j) const { return base + j * 8; }  \
    template <class Index>                                                                   \
    __device__ __forceinline__ Index load(std::uint64_t p) const {                           \
      Index v;                                                                               \
      if constexpr (sizeof(Index) == 4)                                                      \
        asm volatile("ld.global." QUALIFIER ".u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); \
      else                                                                                   \
        asm volatile("ld.global." QUALIFIER ".u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); \
      return v;                                                                              \
    }                                                                                        \
    template <class Index>                                                                   \
    __device__ __forceinline__ Index operator()(Index j) const {                             \
      return load<Index>(address(j));                                                        \
    }                                                                                        \
    __device__ __forceinline__ std::uint64_t chain_start() const { return base; }            \
    __device__ __forceinline__ std::uint64_t chain_next(std::uint64_t p) const {             \
      return load<std::uint64_t>(p);                                                         \
    }                                                                                        \
  };

GPUTOPO_GLOBAL_LOAD(LoadL1, "ca")        // through L1
GPUTOPO_GLOBAL_LOAD(LoadL2, "cg")        // L2 only
GPUTOPO_GLOBAL_LOAD(LoadReadOnly, "nc")  // read-only (non-coherent) path
#undef GPUTOPO_GLOBAL_LOAD

// Policies of the 32-bit-only spaces share this shape.
template <class Derived, class Address>
struct NarrowLoad {
  template <class Index>
  __device__ __forceinline__ Index operator()(Index j) const {
    const auto& self = static_cast<const Derived&>(*this);
    return self.template load<Index>(self.address(j));
  }
};

// tex1Dfetch on a texture object over linear memory, written as the PTX it compiles to.
struct LoadTexture : NarrowLoad<LoadTexture, std::uint32_t> {
  std::uint64_t texture = 0;
  static __device__ LoadTexture make(const ChaseArray& a, std::uint32_t) {
    LoadTexture l;
    l.texture = a.texture;
    return l;
  }
  __device__ __forceinline__ std::uint32_t address(std::uint32_t j) const { return j; }
  template <class Index>
  __device__ __forceinline__ Index load(std::uint32_t j) const {
    std::uint32_t texel[4];
    asm volatile("tex.1d.v4.u32.s32 {%0, %1, %2, %3}, [%4, {%5}];"
                 : "=r"(texel[0]), "=r"(texel[1]), "=r"(texel[2]), "=r"(texel[3])
                 : "l"(texture), "r"(j)
                 : "memory");
    return texel[0];
  }
  __device__ __forceinline__ std::uint32_t chain_start() const { return 0; }
  __device__ __forceinline__ std::uint32_t chain_next(std::uint32_t j) const {
    return load<std::uint32_t>(j);
  }
};

// The address carries %laneid and, subtracted in `base`, threadIdx.x % 32: equal in the 1-D chase
// block, so they cancel, but the compiler cannot know that. The load is therefore the per-thread
// LDC of ordinary constant-memory code, not the uniform-datapath ULDC that the compiler picks for
// a provably warp-uniform chase (whose cache behaves differently). The add lies before the first
// clock read.
// A chain-timed constant array holds byte offsets into the bank; its start carries the same
// lane terms, so the chain is one per-thread LDC per step.
struct LoadConstant : NarrowLoad<LoadConstant, std::uint64_t> {
  std::uint64_t base = 0;    // constant-space address of the array, less 4 x (threadIdx.x % 32)
  std::uint32_t lane = 0;    // %laneid
  std::uint32_t offset = 0;  // byte offset of the array in the bank, less 4 x (threadIdx.x % 32)
  static __device__ LoadConstant make(const ChaseArray& a, std::uint32_t) {
    std::uint64_t bank;
    asm("mov.u64 %0, gputopo_constant_bank;" : "=l"(bank));
    LoadConstant l;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l.lane));
    l.base = bank + std::uint64_t{a.constant_word} * 4 - std::uint64_t{threadIdx.x % 32} * 4;
    l.offset = a.constant_word * 4 - (threadIdx.x % 32) * 4;
    return l;
  }
  __device__ __forceinline__ std::uint32_t chain_start() const { return offset + lane * 4; }
  __device__ __forceinline__ std::uint32_t chain_next(std::uint32_t v) const {
    return *reinterpret_cast<const std::uint32_t*>(
        reinterpret_cast<const char*>(gputopo_constant_bank) + v);
  }
  __device__ __forceinline__ std::uint64_t address(std::uint32_t j) const {
    return base + (std::uint64_t{j} + lane) * 4;
  }
  template <class Index>
  __device__ __forceinline__ Index load(std::uint64_t p) const {
    std::uint32_t v;
    asm volatile("ld.const.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
  }
};

// A chain starts at `base` plus 4 x (%laneid - threadIdx.x % 32), zero in the 1-D chase block.
// The compiler cannot know that, so the chained value is not warp-uniform: otherwise it is kept
// in a uniform register, and each unrolled pass of the segment loop ends in an R2UR back to it
// (about one cycle a load more than the pure `ld.shared.u32 r, [r]` chase on an H100).
struct LoadShared : NarrowLoad<LoadShared, std::uint32_t> {
  std::uint32_t base = 0;  // shared-window address
  std::uint32_t lane = 0;  // %laneid
  static __device__ LoadShared make(const ChaseArray& a, std::uint32_t dynamic_base) {
    LoadShared l;
    l.base = dynamic_base + a.shared_word * 4;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l.lane));
    return l;
  }
  __device__ __forceinline__ std::uint32_t address(std::uint32_t j) const { return base + j * 4; }
  template <class Index>
  __device__ __forceinline__ Index load(std::uint32_t p) const {
    std::uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(p) : "memory");
    return v;
  }
  __device__ __forceinline__ std::uint32_t chain_start() const {
    return base + (lane - threadIdx.x % 32) * 4;
  }
  __device__ __forceinline__ std::uint32_t chain_next(std::uint32_t p) const {
    return load<std::uint32_t>(p);
  }
};

// No memory access: the chase times the clock reads and the dependent store alone.
struct NoLoad : NarrowLoad<NoLoad, std::uint32_t> {
  static __device__ NoLoad make(const ChaseArray&, std::uint32_t) { return {}; }
  __device__ __forceinline__ std::uint32_t address(std::uint32_t j) const { return j; }
  template <class Index>
  __device__ __forceinline__ Index load(std::uint32_t j) const {
    std::uint32_t v;
    asm volatile("mov.u32 %0, %1;" : "=r"(v) : "r"(j));
    return v;
  }
  __device__ __forceinline__ std::uint32_t chain_start() const { return 0; }
  __device__ __forceinline__ std::uint32_t chain_next(std::uint32_t j) const {
    return load<std::uint32_t>(j);
  }
};

}  // namespace gputopo::device::cuda
