#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device/requests.hpp"

namespace gputopo::device::cuda {

// The reduction kernel (Device::reductions): every warp sends `rounds` reductions to each of the
// `count` lines in turn, starting at its own line, each lane to its own word; span[0] gets the
// earliest block start and span[1] the latest block end (%globaltimer, ns).
// The latency kernel: the first block on SM `timed_sm` claims the run (`claim`), and its first
// thread visits the lines in turn, `rounds` passes, each visit kReductionChain dependent
// `atom.global.add` timed with %clock64; cycles[pass x count + line] gets the visit's cycles.
struct ReductionArgs {
  std::uint32_t* base = nullptr;
  std::uint32_t line_words[kMaxReductionLines] = {};  // each line's offset in 4-byte words
  std::uint32_t count = 0;
  std::uint32_t rounds = 0;
  unsigned long long* span = nullptr;
  int timed_sm = -1;
  unsigned* claim = nullptr;
  unsigned* cycles = nullptr;
};

constexpr std::uint32_t kReductionThreads = 256;

cudaError_t launch_reductions(const ReductionArgs& args, std::uint32_t blocks, cudaStream_t s);
cudaError_t launch_reduction_latency(const ReductionArgs& args, std::uint32_t blocks,
                                     cudaStream_t s);

}  // namespace gputopo::device::cuda
