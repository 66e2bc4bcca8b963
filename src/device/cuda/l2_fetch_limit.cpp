#include "device/cuda/l2_fetch_limit.hpp"

#include <cuda_runtime.h>

namespace gputopo::device::cuda {

std::optional<std::uint32_t> read_l2_fetch_limit() {
  std::size_t bytes = 0;
  if (cudaDeviceGetLimit(&bytes, cudaLimitMaxL2FetchGranularity) != cudaSuccess) {
    cudaGetLastError();  // an unsupported limit is not an error of the next call
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(bytes);
}

ScopedL2FetchLimit::ScopedL2FetchLimit(std::optional<std::uint32_t> bytes) {
  const auto before = read_l2_fetch_limit();
  if (!bytes) {
    applied_ = before;
    return;
  }
  if (!before) return;
  if (cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, *bytes) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  previous_ = *before;
  applied_ = read_l2_fetch_limit();
}

ScopedL2FetchLimit::~ScopedL2FetchLimit() {
  if (previous_ && cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, *previous_) != cudaSuccess)
    cudaGetLastError();
}

}  // namespace gputopo::device::cuda
