#include "discovery/probes/tlb/tlb_probes.hpp"

namespace gputopo::discovery {

void add_tlb_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo&) {
  probes.push_back(make_tlb_probe());
}

}  // namespace gputopo::discovery
