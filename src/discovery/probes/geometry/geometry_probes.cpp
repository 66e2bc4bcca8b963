#include "discovery/probes/geometry/geometry_probes.hpp"

#include <utility>

#include "discovery/context.hpp"
#include "model/vendor.hpp"

namespace gputopo::discovery {

void add_geometry_probes(std::vector<std::unique_ptr<Probe>>& probes,
                         const device::DeviceInfo& info) {
  for (const Target& t : l1_family_targets(info)) {
    probes.push_back(make_set_geometry_probe({t, &keys::size}));
    if (t.level == 1) probes.push_back(make_derived_line_probe(t.element));
  }
  const Target l2{"l2", device::Space::L2, 1, "", 0, false};
  probes.push_back(make_set_geometry_probe({l2, &keys::segmentSize}));
  probes.push_back(make_derived_line_probe("l2"));
  if (!model::is_amd(info)) probes.push_back(make_segment_hash_probe());
  probes.push_back(make_l2_write_policy_probe());
  probes.push_back(make_l2_store_probe());
  probes.push_back(make_l1_store_probe());
}

}  // namespace gputopo::discovery
