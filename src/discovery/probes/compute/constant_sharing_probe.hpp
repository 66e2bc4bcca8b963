#pragma once

#include <memory>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Writes compute.instructionCacheHoldsConstants (--depth full): whether the constant L1.5 is one
// of the instruction-cache levels the code-size sweep found. For each level, one warp loops over
// a constant chase and a code body that each fit the level alone and overflow it together; where
// the level holds both, the pair costs far more than its parts. A constant L1.5 larger than the
// constant space then takes that level's size (constantL15.size).
std::unique_ptr<Probe> make_constant_sharing_probe();

}  // namespace gputopo::discovery
