#pragma once

namespace gputopo::model {

// The theoretical peak bandwidth of device memory in GB/s: double data rate x the memory clock x
// the bus width in bytes.
double peak_dram_gbps(double memory_clock_mhz, double bus_width_bits);

}  // namespace gputopo::model
