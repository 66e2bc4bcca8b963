#pragma once

// One block's work in a chase launch, as the kernels read it from global memory. Included by the
// kernels (nvcc, C++17) and the host code (C++20): plain fixed-width fields only.
#include <cstdint>

namespace gputopo::device::cuda {

// Per-load records are staged in shared memory in chunks of this many loads, then copied out.
// Kept small: the buffer counts against the shared-memory carve-out and so shrinks L1.
constexpr std::uint32_t kRecordChunk = 256;
// %smid values the claim tables cover.
constexpr int kMaxSmid = 1024;
// Threads of a chase block: all of them warm the array before thread 0 (or thread_a) times it.
constexpr std::uint32_t kChaseThreads = 1024;

enum class JobMode : std::uint32_t {
  Chase = 0,       // all threads warm A, thread 0 times A
  SameThread = 1,  // thread_a warms A, warms B, times A
  TwoThreads = 2,  // thread_a warms A; barrier; thread_b warms B; barrier; thread_a times A
  // Two blocks on two SMs: A's block warms A with all threads and hands over; B's block (a job of
  // its own, whose `a` is B's array) warms B with all threads and hands back; thread 0 times A.
  TwoSmsA = 3,
  TwoSmsB = 4,
};

enum class JobStatus : std::uint32_t { NotRun = 0, Done = 1, TimedOut = 2 };

// One array being chased. `base` is a device pointer (global spaces; the image copied into shared
// memory for the shared space), `texture` a texture object, `constant_word` an offset into the
// constant bank.
struct ChaseArray {
  std::uint64_t base = 0;
  std::uint64_t texture = 0;
  std::uint64_t elements = 0;
  std::uint64_t stride_words = 0;
  std::uint64_t words = 0;
  std::uint32_t constant_word = 0;
  std::uint32_t space = 0;        // device::Space
  std::uint32_t shared_word = 0;  // where the shared space puts it in dynamic shared memory
  std::uint32_t warmup_passes = 0;
  std::uint32_t warmup = 0;  // device::Warmup
};

struct ChaseJob {
  ChaseArray a;
  ChaseArray b;
  std::uint32_t mode = 0;   // JobMode
  std::uint32_t chain = 0;  // 1: the recorded loads are timed as a chain in segments
  std::uint32_t recorded_loads = 0;
  std::uint32_t segment_loads = 0;  // chain: loads between two clock reads
  std::uint32_t thread_a = 0;
  std::uint32_t thread_b = 0;
  std::uint32_t partner = 0;      // TwoSmsB: the index of A's job
  std::uint64_t cycles_out = 0;   // device pointer: recorded_loads x uint32
  std::uint64_t indices_out = 0;  // device pointer: recorded_loads x index word, or 0
  // Written by the kernel.
  std::uint32_t handoff = 0;  // TwoSmsA: 1 once A is warm, 2 once B is
  std::uint32_t status = 0;   // JobStatus
  std::int32_t smid = -1;
  // Chain: the fewest cycles of a segment without loads (its clock reads and dependent store).
  std::uint32_t chain_overhead = 0;
  std::uint64_t globaltimer_start = 0;
  std::uint64_t globaltimer_warm = 0;  // the timing thread, once the warm-up is done
  std::uint64_t globaltimer_end = 0;
  std::uint64_t clock_start = 0;
  std::uint64_t clock_end = 0;
};

// What every block of a chase launch gets.
struct ChaseLaunchArgs {
  ChaseJob* jobs = nullptr;
  const std::int32_t* sm_to_job = nullptr;  // kMaxSmid entries: placed job per SM, or -1
  const std::int32_t* unplaced = nullptr;   // jobs for any SM
  std::uint32_t unplaced_count = 0;
  std::uint32_t* claims = nullptr;         // kMaxSmid flags, zeroed before the launch
  std::uint32_t* next_unplaced = nullptr;  // counter, zeroed before the launch
  std::uint32_t* sink = nullptr;           // kChaseThreads words: warm-up sums land here
  std::uint64_t deadline_ns = 0;           // %globaltimer value after which jobs give up
};

}  // namespace gputopo::device::cuda
