#include "discovery/probes/dram/dram_probes.hpp"

namespace gputopo::discovery {

void add_dram_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo&) {
  probes.push_back(make_dram_latency_probe());
  probes.push_back(make_dram_bandwidth_probe());
}

}  // namespace gputopo::discovery
