#pragma once

#include <memory>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Writes compute.instructionCacheSizes (--depth full): Wong et al.'s code-size sweep. One warp
// runs a loop of straight-line FFMAs (8 independent chains, so it issues every cycle) whose body
// doubles from 4 KiB to 1 MiB of SASS; a body that no longer fits an instruction-cache level costs
// more cycles per instruction.
std::unique_ptr<Probe> make_icache_probe();

}  // namespace gputopo::discovery
