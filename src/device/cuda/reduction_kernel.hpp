#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device/requests.hpp"

namespace gputopo::device::cuda {

// The reduction kernel (Device::reductions): every warp sends `rounds` reductions to each of the
// `count` lines in turn, starting at its own line, each lane to its own word; span[0] gets the
// earliest block start and span[1] the latest block end (%globaltimer, ns).
struct ReductionArgs {
  std::uint32_t* base = nullptr;
  std::uint32_t line_words[kMaxReductionLines] = {};  // each line's offset in 4-byte words
  std::uint32_t count = 0;
  std::uint32_t rounds = 0;
  unsigned long long* span = nullptr;
};

constexpr std::uint32_t kReductionThreads = 256;

cudaError_t launch_reductions(const ReductionArgs& args, std::uint32_t blocks, cudaStream_t s);

}  // namespace gputopo::device::cuda
