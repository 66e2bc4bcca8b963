// Compiled by nvcc only for __CUDA_ARCH_LIST__: the architectures this build has code for.
#include "device/cuda/built_architectures.hpp"

namespace gputopo::device::cuda {

ComputeCapability minimum_compute_capability() {
  constexpr int kArchitectures[] = {__CUDA_ARCH_LIST__};
  int lowest = kArchitectures[0];
  for (int arch : kArchitectures)
    if (arch < lowest) lowest = arch;
  return {lowest / 100, (lowest / 10) % 10};
}

}  // namespace gputopo::device::cuda
