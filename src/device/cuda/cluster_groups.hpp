#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "device/device.hpp"

namespace gputopo::device::cuda {

// SMs that run the blocks of one thread-block cluster, one sorted group per cluster, with as
// many clusters resident at once as the device allows. Empty below compute capability 9.0 or
// for a cluster size the device cannot launch.
std::vector<std::vector<int>> cluster_groups(const DeviceInfo& info, cudaStream_t stream,
                                             int cluster_size);

}  // namespace gputopo::device::cuda
