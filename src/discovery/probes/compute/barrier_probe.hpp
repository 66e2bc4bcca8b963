#pragma once

#include <memory>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Writes compute.syncthreadsLatency and compute.syncthreadsBlockLatency: the cycles of one
// __syncthreads (bar.sync 0) in a dependent chain, for a block of one warp and of the most warps,
// with every warp count between in the evidence (Wong et al.'s barrier experiment).
std::unique_ptr<Probe> make_barrier_probe();

}  // namespace gputopo::discovery
