#include "discovery/registry.hpp"

#include "discovery/l2_dram_probes.hpp"
#include "discovery/probes/compute/compute_probes.hpp"

namespace gputopo::discovery {

std::vector<std::unique_ptr<Probe>> registered_probes(const device::DeviceInfo& info) {
  std::vector<std::unique_ptr<Probe>> probes;
  add_l1_family_probes(probes, info);
  add_l2_dram_probes(probes, info);
  add_compute_probes(probes, info);
  return probes;
}

}  // namespace gputopo::discovery
