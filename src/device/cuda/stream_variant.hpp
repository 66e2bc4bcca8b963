#pragma once

// One kernel of the stream family, as the kernels (nvcc, C++17) and the planner (C++20) see it.
#include <cstdint>

namespace gputopo::device::cuda {

struct StreamVariant {
  std::uint32_t access_bytes = 16;  // bytes per access: 4, 8 or 16
  std::uint32_t unroll = 4;         // independent accesses in flight per thread: 1, 2, 4, 8 or 16
  std::uint32_t tile() const { return unroll * 32; }  // a warp's accesses per step
  bool operator==(const StreamVariant& o) const {
    return access_bytes == o.access_bytes && unroll == o.unroll;
  }
};

}  // namespace gputopo::device::cuda
