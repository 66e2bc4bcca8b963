#pragma once

#include <memory>

#include "device/device.hpp"

namespace gputopo::device::cuda {

// The measuring backend over an already validated device (see device_query.hpp).
std::unique_ptr<Device> make_cuda_device(DeviceInfo info);

}  // namespace gputopo::device::cuda
