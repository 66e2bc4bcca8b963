#pragma once

#include <memory>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Writes compute.dsmemLatency, dsmemReadBytesPerClkPerSm, clusterSyncLatency and
// clusterSyncBlockLatency: thread-block clusters of two blocks (sm_90), a dependent chain of
// loads from the other block's shared memory (distributed shared memory), the same with many
// chains in flight, and a chain of cluster barriers for blocks of one warp and of 32.
std::unique_ptr<Probe> make_cluster_probe();

}  // namespace gputopo::discovery
