#pragma once

#include <memory>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Writes compute.<op>Throughput, <op>PerClkPerSm and <op>Tflops for wgmmaBf16, wgmmaE4m3 and
// wgmmaE5m2: Hopper's warpgroup MMA (sm_90a) as one block of two warpgroups streams BF16
// m64n256k16 or FP8 (E4M3, E5M2) m64n256k32 products.
std::unique_ptr<Probe> make_wgmma_probe();

}  // namespace gputopo::discovery
