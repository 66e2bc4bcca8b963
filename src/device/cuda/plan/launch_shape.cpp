#include "device/cuda/plan/launch_shape.hpp"

#include <algorithm>
#include <cmath>

namespace gputopo::device::cuda {

std::vector<LaunchShape> shape_candidates(const DeviceInfo& info) {
  std::vector<LaunchShape> shapes;
  const auto max_threads_sm = static_cast<std::uint32_t>(std::max(info.max_threads_per_sm(), 1));
  const auto max_threads_block =
      static_cast<std::uint32_t>(std::max(info.max_threads_per_block(), 1));
  const auto max_blocks = static_cast<std::uint32_t>(std::max(info.max_blocks_per_sm(), 1));
  for (std::uint32_t threads : {128U, 256U, 512U, 1024U}) {
    if (threads > max_threads_block) continue;
    for (std::uint32_t bps : {1U, 2U, 4U, 8U, 16U}) {
      if (bps > max_blocks || bps * threads > max_threads_sm) continue;
      shapes.push_back({bps, threads});
    }
  }
  std::stable_sort(shapes.begin(), shapes.end(), [](const LaunchShape& a, const LaunchShape& b) {
    return a.blocks_per_sm * a.threads > b.blocks_per_sm * b.threads;
  });
  return shapes;
}

std::vector<LaunchShape> flat_shape_candidates(const DeviceInfo& info) {
  std::vector<LaunchShape> shapes;
  const auto max_threads_block =
      static_cast<std::uint32_t>(std::max(info.max_threads_per_block(), 1));
  for (std::uint32_t threads : {256U, 512U, 1024U})
    if (threads <= max_threads_block) shapes.push_back({0, threads});
  return shapes;
}

std::uint32_t LaunchShape::blocks(const DeviceInfo& info, std::uint64_t accesses,
                                  std::uint32_t tile) const {
  if (!flat()) return blocks_per_sm * static_cast<std::uint32_t>(info.sm_count());
  const std::uint64_t per_block = std::uint64_t{std::max(threads / 32, 1U)} * std::max(tile, 1U);
  const std::uint64_t n = (accesses + per_block - 1) / per_block;
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(n, 1, 0x7FFFFFFF));
}

std::vector<StreamVariant> stream_variant_candidates(bool copy) {
  std::vector<StreamVariant> out{{16, 4}};
  for (std::uint32_t bytes : {16U, 8U, 4U})
    for (std::uint32_t unroll : {1U, 2U, 4U, 8U, 16U}) {
      if (bytes == 16 && unroll == 4) continue;
      if (copy && (bytes == 4 || unroll == 16)) continue;
      out.push_back({bytes, unroll});
    }
  return out;
}

std::uint32_t launches_per_repeat(double seconds_per_launch, double target_s) {
  if (!(seconds_per_launch > 0)) return 1;
  const double n = std::ceil(target_s / seconds_per_launch);
  return static_cast<std::uint32_t>(std::clamp(n, 1.0, 10000.0));
}

std::uint64_t bytes_moved(bool copy, std::uint64_t bytes) { return copy ? 2 * bytes : bytes; }

}  // namespace gputopo::device::cuda
