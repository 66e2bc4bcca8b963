#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "device/cuda/compute_job.hpp"

namespace gputopo::device::cuda {

// The code-body op's kernel: PTX of `instructions` FFMAs in a loop, each pass after a chase over
// `chase_bytes` of constant memory (0: none), compiled by the driver for compute capability
// cc_major.cc_minor the first time a size is asked for (cudaLibraryLoadData) and kept for the
// process. One block: its clocks, SM and status go where `args` says.
cudaError_t launch_code_body(std::uint32_t instructions, std::uint32_t chase_bytes, int cc_major,
                             int cc_minor, const ComputeLaunchArgs& args, std::uint32_t blocks,
                             std::uint32_t threads, cudaStream_t s);

// Compiles the bodies of a batch ((instructions, chase_bytes) each) that are not loaded yet, in
// parallel threads into the current device: on a machine whose JIT cache is cold, the driver
// compiles a large body for seconds, one after another at the launches otherwise.
cudaError_t prepare_code_bodies(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& bodies,
                                int cc_major, int cc_minor);

}  // namespace gputopo::device::cuda
