#pragma once

// What every block of a compute launch gets, as the kernels read it. Included by the kernels
// (nvcc, C++17) and the host code (C++20): plain fixed-width fields only.
#include <cstdint>

namespace gputopo::device::cuda {

// Dependent steps per chain in one trip of the timed loop (the loop body is unrolled this far).
constexpr std::uint32_t kComputeUnroll = 32;

// A chain of one per thread whose length is a multiple of kStraightMarkSteps, up to
// kStraightMarks of them, runs as straight code instead of the loop: the clock is read after
// every kStraightMarkSteps steps, and the span ends at the mark of its length. A loop trip's
// branches cost a dependent chain 1 to 2 cycles a step at 32 steps a trip (58 cycles a trip on
// the H100), which the difference of two lengths does not cancel; straight code has none.
constexpr std::uint32_t kStraightMarkSteps = 256;
constexpr std::uint32_t kStraightMarks = 4;

enum class ComputeStatus : std::uint32_t { NotRun = 0, Done = 1, TimedOut = 2 };

struct ComputeLaunchArgs {
  std::uint64_t* clocks = nullptr;      // per warp of the launch: start and end %clock64
  std::int32_t* smids = nullptr;        // per block
  std::uint32_t* status = nullptr;      // per block: ComputeStatus
  std::uint32_t* sink = nullptr;        // blockDim.x words the results go to
  std::uint32_t* atom_words = nullptr;  // global atomics: blocks x threads x ILP words
  std::uint32_t trips = 0;              // loop trips, kComputeUnroll steps per chain each
  std::uint32_t straight_marks = 0;     // > 0: straight code, the span ends at this mark
  // Operands of the steps, as kernel parameters so that the compiler cannot fold them.
  float f1 = 0, f2 = 0;
  double d1 = 0, d2 = 0;
  std::uint32_t u1 = 0, u2 = 0;
  // Atomics: word of thread t is t & address_mask (per chain), so ~0 gives every thread its own
  // word and 0 puts all on one; the compiler cannot tell which, so it does not aggregate a warp's
  // atomics on one address into one.
  std::uint32_t address_mask = 0;
  std::uint32_t arg = 0;           // the request's arg (shared loads: lanes' stride in bytes)
  std::uint32_t shared_words = 0;  // dynamic shared memory, 4-byte words
  std::uint64_t deadline_ns = 0;   // from the block's start, on %globaltimer
};

}  // namespace gputopo::device::cuda
