#pragma once

// Kept free of other includes: built_architectures.cu, compiled by nvcc, includes it.
namespace gputopo::device::cuda {

struct ComputeCapability {
  int major = 0;
  int minor = 0;
};

// The lowest compute capability this build has code for (its lowest CUDA architecture, e.g.
// {7, 5} for sm_75); older GPUs are unsupported.
ComputeCapability minimum_compute_capability();

}  // namespace gputopo::device::cuda
