#include "discovery/probes/l2/l2_probes.hpp"

#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "model/vendor.hpp"

namespace gputopo::discovery {

Target l2_target() {
  Target t;
  t.element = "l2";
  t.space = device::Space::L2;
  return t;
}

void add_l2_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo& info) {
  const Target l2 = l2_target();
  probes.push_back(make_fetch_probe(l2));
  probes.push_back(make_l2_segment_probe());
  probes.push_back(make_l2_line_probe());
  probes.push_back(make_l2_capacity_probe());
  probes.push_back(make_l2_latency_probe());
  probes.push_back(make_l2_sm_latency_probe());
  probes.push_back(make_l2_bandwidth_probe());
  // AMD's L2 may be one of several (one per XCD), each reached by its own CUs only.
  if (model::is_amd(info))
    probes.push_back(make_sm_sharing_probe(l2, {&model::keys::capacity, false}));
}

}  // namespace gputopo::discovery
