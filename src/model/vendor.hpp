#pragma once

#include <string_view>

#include "model/device_info.hpp"

// Where the vendors name one thing differently: the report's elements follow the vendor's own
// names (docs/amd.md), the probes stay the same.
namespace gputopo::model {

inline bool is_amd(const DeviceInfo& info) { return info.vendor == "AMD"; }

// The block's scratchpad: NVIDIA's shared memory, AMD's local data share.
inline std::string_view shared_memory_element(const DeviceInfo& info) {
  return is_amd(info) ? "lds" : "shared";
}

}  // namespace gputopo::model
