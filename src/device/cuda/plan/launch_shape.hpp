#pragma once

#include <cstdint>
#include <vector>

#include "device/cuda/stream_variant.hpp"
#include "device/device_info.hpp"

// Launch shapes the stream kernels try, and the arithmetic around their timings. Plain C++.
namespace gputopo::device::cuda {

struct LaunchShape {
  std::uint32_t blocks_per_sm = 1;
  std::uint32_t threads = 256;
  std::uint32_t blocks(const DeviceInfo& info) const {
    return blocks_per_sm * static_cast<std::uint32_t>(info.sm_count());
  }
};

// Blocks per SM x threads per block within the device's limits, fullest occupancy first.
std::vector<LaunchShape> shape_candidates(const DeviceInfo& info);

// The kernel variants a stream tries (bytes per access x accesses in flight per thread), the
// default first. Copies try fewer: their loads and stores already overlap.
std::vector<StreamVariant> stream_variant_candidates(bool copy);

// Launches per timed repeat so that one repeat lasts about `target_s`, given one launch's time.
std::uint32_t launches_per_repeat(double seconds_per_launch, double target_s);

// Bytes a stream moves per pass over a buffer of `bytes`: read + written (copy moves both).
std::uint64_t bytes_moved(bool copy, std::uint64_t bytes);

}  // namespace gputopo::device::cuda
