#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/compute_job.hpp"

namespace gputopo::device::cuda {

// The code-body op's kernel: PTX of `instructions` FFMAs in a loop, each pass after a chase over
// `chase_bytes` of constant memory (0: none), compiled by the driver for compute capability
// cc_major.cc_minor the first time a size is asked for (cudaLibraryLoadData) and kept for the
// process. One block: its clocks, SM and status go where `args` says.
cudaError_t launch_code_body(std::uint32_t instructions, std::uint32_t chase_bytes, int cc_major,
                             int cc_minor, const ComputeLaunchArgs& args, std::uint32_t blocks,
                             std::uint32_t threads, cudaStream_t s);

}  // namespace gputopo::device::cuda
