#pragma once

#include <memory>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// Writes compute.wgmmaBf16Throughput, wgmmaBf16PerClkPerSm and wgmmaBf16Tflops: Hopper's
// warpgroup MMA (sm_90a) as one block of two warpgroups streams BF16 m64n256k16 products.
std::unique_ptr<Probe> make_wgmma_probe();

}  // namespace gputopo::discovery
