#include "model/dram_peak.hpp"

namespace gputopo::model {

double peak_dram_gbps(double memory_clock_mhz, double bus_width_bits) {
  return 2.0 * memory_clock_mhz * 1e6 * bus_width_bits / 8.0 / 1e9;
}

}  // namespace gputopo::model
