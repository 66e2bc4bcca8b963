#pragma once

#include <memory>
#include <vector>

#include "device/info.hpp"
#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Every probe discovery knows, in registration order (the report order of their elements).
std::vector<std::unique_ptr<Probe>> registered_probes(const device::DeviceInfo& info);

}  // namespace gputopo::discovery
