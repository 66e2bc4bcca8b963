#include "discovery/probes/layout/layout_probes.hpp"

namespace gputopo::discovery {

void add_layout_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo&) {
  probes.push_back(make_layout_probe());
  probes.push_back(make_l2_segment_of_sm_probe());
  probes.push_back(make_l2_slices_probe());
}

}  // namespace gputopo::discovery
