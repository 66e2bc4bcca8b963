#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "device/device.hpp"

namespace gputopo::device::sim::test {

inline constexpr std::uint64_t KiB = 1024;
inline constexpr std::uint64_t MiB = 1024 * KiB;

inline double median(std::vector<std::uint32_t> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Fraction of loads slower than `threshold` cycles.
inline double fraction_above(const std::vector<std::uint32_t>& v, double threshold) {
  const auto n = std::count_if(v.begin(), v.end(), [&](std::uint32_t c) { return c > threshold; });
  return v.empty() ? 0.0 : static_cast<double>(n) / static_cast<double>(v.size());
}

inline ChaseRequest chase_request(Space space, std::uint64_t bytes, std::uint32_t stride = 128,
                                  std::uint32_t loads = 512) {
  ChaseRequest r;
  r.space = space;
  r.array_bytes = bytes;
  r.stride_bytes = stride;
  r.warmup_passes = 1;
  r.recorded_loads = loads;
  return r;
}

inline ChaseResult chase_one(Device& device, const ChaseRequest& request,
                             std::optional<int> carveout = std::nullopt) {
  ChaseBatch batch;
  batch.requests.push_back(request);
  batch.carveout_percent = carveout;
  return device.chase(batch).results.at(0);
}

}  // namespace gputopo::device::sim::test
