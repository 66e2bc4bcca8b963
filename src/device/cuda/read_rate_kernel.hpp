#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gputopo::device::cuda {

// The L2 read-rate kernel: the SMs with a rank (rank_of_sm[smid] >= 0) each run one block of
// kReadRateThreads that loads the lines at base + line_offsets[i] with `ld.global.cg` (16 B a
// lane, 4 lines a warp's load, 8 loads in flight), every warp `iterations` rounds.
constexpr std::uint32_t kReadRateThreads = 1024;

struct ReadRateArgs {
  const std::uint8_t* base = nullptr;
  const std::uint64_t* line_offsets = nullptr;
  std::uint64_t lines = 0;
  // Where the lines lie evenly spaced: the first offset and the spacing, read without the list.
  std::uint64_t first_offset = 0;
  std::uint64_t spacing = 0;  // 0: read each line's offset from line_offsets
  const int* rank_of_sm = nullptr;
  std::uint32_t set_size = 0;  // SMs with a rank
  unsigned max_smid = 0;       // entries of rank_of_sm and claimed
  int* claimed = nullptr;
  std::uint32_t iterations = 0;
  unsigned* sink = nullptr;
};

// The bytes one warp loads in `iterations` rounds.
std::uint64_t read_rate_bytes_per_warp(std::uint32_t iterations);

cudaError_t launch_read_rate(const ReadRateArgs& args, std::uint32_t blocks, std::uint32_t threads,
                             cudaStream_t s);

}  // namespace gputopo::device::cuda
