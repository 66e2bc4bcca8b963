#pragma once

#include <cstdint>
#include <vector>

#include "device/cuda/stream_variant.hpp"
#include "device/info.hpp"

// Launch shapes the stream kernels try, and the arithmetic around their timings. Plain C++.
namespace gputopo::device::cuda {

// A stream launch: blocks per SM x threads per block, each block's warps walking the buffer as
// often as it takes; or (flat) as many blocks as cover the buffer once, one tile a warp.
struct LaunchShape {
  std::uint32_t blocks_per_sm = 1;  // 0: flat
  std::uint32_t threads = 256;
  bool flat() const { return blocks_per_sm == 0; }
  // The blocks of a launch over `accesses` in tiles of `tile` accesses a warp.
  std::uint32_t blocks(const DeviceInfo& info, std::uint64_t accesses = 0,
                       std::uint32_t tile = 1) const;
  bool operator==(const LaunchShape&) const = default;
};

// Blocks per SM x threads per block within the device's limits, fullest occupancy first.
std::vector<LaunchShape> shape_candidates(const DeviceInfo& info);
// The flat shapes (threads per block) a device-memory stream tries as well.
std::vector<LaunchShape> flat_shape_candidates(const DeviceInfo& info);

// The kernel variants a stream tries (bytes per access x accesses in flight per thread), the
// default first. Copies try fewer: their loads and stores already overlap.
std::vector<StreamVariant> stream_variant_candidates(bool copy);

// Launches per timed repeat so that one repeat lasts about `target_s`, given one launch's time.
std::uint32_t launches_per_repeat(double seconds_per_launch, double target_s);

// Bytes a stream moves per pass over a buffer of `bytes`: read + written (copy moves both).
std::uint64_t bytes_moved(bool copy, std::uint64_t bytes);

}  // namespace gputopo::device::cuda
