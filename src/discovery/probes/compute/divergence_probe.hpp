#pragma once

#include <memory>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Writes compute.divergenceCyclesPerPath: what one more distinct path among a warp's lanes adds to
// a branch, from one warp looping over k paths (k = 1 to 32) with its lanes spread over them,
// against the same loop with every lane on one path (Wong et al.'s divergence experiment).
std::unique_ptr<Probe> make_divergence_probe();

}  // namespace gputopo::discovery
