#pragma once

#include <memory>
#include <vector>

#include "device/info.hpp"
#include "discovery/probe.hpp"

namespace gputopo::discovery {

// The compute-side probes (docs/compute.md): instruction latency and throughput per op.
void add_compute_probes(std::vector<std::unique_ptr<Probe>>& probes,
                        const device::DeviceInfo& info);

}  // namespace gputopo::discovery
