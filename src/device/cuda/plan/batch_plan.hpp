#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "device/requests.hpp"

// How a batch is split into kernel launches. Plain C++, unit-tested without a GPU.
namespace gputopo::device::cuda {

// Arrays start at offsets aligned to this: with 4 KiB alignment, arrays measured at once on many
// SMs showed spurious misses on the H200; 2 MiB (one large page) did not.
// Constant arrays are packed into the one __constant__ bank at this alignment.
inline constexpr std::uint64_t kConstantAlignment = 256;

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment);

struct Placement {
  std::vector<std::uint64_t> offsets;  // one per size, each a multiple of the alignment
  std::uint64_t total = 0;             // bytes needed from an aligned base
};
// Offsets for `sizes`, each in its own slot of a multiple of `alignment`; `gap` extra bytes after
// every slot (0 normally: a diagnostic for how placement affects concurrent measurements).
Placement place(const std::vector<std::uint64_t>& sizes, std::uint64_t alignment,
                std::uint64_t gap = 0);

// Identifies a constant array's contents: equal keys share one copy in the bank.
struct ConstantArray {
  std::uint64_t bytes = 0;
  std::uint32_t stride_bytes = 0;
  Pattern pattern = Pattern::Strided;
  bool chain = false;  // holds byte offsets into the bank (chain timing), not positions
  std::vector<std::uint64_t> sequence{};  // Pattern::Sequence: the elements in chase order
  bool operator==(const ConstantArray&) const = default;
};
ConstantArray constant_array(const ChaseRequest& r);

// One measured unit (a chase, or an interference pair) as the planner sees it.
struct PlanUnit {
  int group = 0;           // units of different groups never share a launch (kernel variant)
  bool sm_private = true;  // false: a shared level (L2, DRAM) is involved, so it runs alone
  std::uint64_t global_bytes = 0;        // bytes of its device-memory arrays
  std::vector<ConstantArray> constants;  // arrays it needs in the constant bank
  int sm = -1;                           // placement, or -1 for any SM
};

struct PlanLimits {
  int sm_count = 1;
  // Arrays measured at once must together fit this (a share of L2), so that L1 misses of
  // concurrent requests find L2 as they would alone. Counts the arrays' own bytes (the padding
  // up to the next 2 MiB offset is never touched). A unit larger than this runs alone.
  std::uint64_t concurrent_bytes = 0;
  std::uint64_t constant_bank_bytes = 64 * 1024;
};

// Launches in the order they run; each lists unit indices. SM-private units of one group share a
// launch up to one per SM, distinct placed SMs, the concurrent footprint and the constant bank;
// every other unit runs alone, in request order.
std::vector<std::vector<std::size_t>> plan_launches(const std::vector<PlanUnit>& units,
                                                    const PlanLimits& limits);

// Distinct constant arrays of `units` (in first-use order) and their offsets in the bank.
struct ConstantPacking {
  std::vector<ConstantArray> arrays;
  std::vector<std::uint64_t> offsets;
  std::uint64_t bytes = 0;
  std::uint64_t offset_of(const ConstantArray& a) const;
};
ConstantPacking pack_constants(const std::vector<const PlanUnit*>& units);

}  // namespace gputopo::device::cuda
