#pragma once

#include <memory>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Writes compute.registerReadsPerClk: how many vector-register operands one warp's instructions
// read per clock, from one warp's independent FFMAs that read three distinct registers against
// ones that read two (the register-file experiment of Wong et al., without choosing registers).
std::unique_ptr<Probe> make_register_read_probe();

}  // namespace gputopo::discovery
