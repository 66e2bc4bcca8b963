#include "discovery/probes/geometry/geometry_probes.hpp"

#include <utility>

#include "discovery/context.hpp"

namespace gputopo::discovery {

void add_geometry_probes(std::vector<std::unique_ptr<Probe>>& probes,
                         const device::DeviceInfo& info) {
  for (const Target& t : l1_family_targets(info.constant_bytes)) {
    GeometryTarget g{t, &keys::size};
    std::vector<std::string> needs{t.element + ".size", t.element + ".latency",
                                   t.element + ".fetch"};
    if (t.level == 1) {
      needs.push_back(t.element + ".line");
      needs.push_back(t.element + ".missPenalty");
    } else {
      needs.push_back(t.element + ".presence");
      needs.push_back("l2.latency");
    }
    if (t.space == device::Space::L1) needs.push_back(t.element + ".cached");
    probes.push_back(make_set_geometry_probe(std::move(g), std::move(needs)));
    if (t.level == 1)
      probes.push_back(
          make_derived_line_probe(t.element, {t.element + ".line", t.element + ".fetch"}));
  }
  Target l2{"l2", device::Space::L2, 1, "", 0, false};
  probes.push_back(make_set_geometry_probe(
      {l2, &keys::segmentSize}, {"l2.segments", "l2.line", "l2.latency", "dram.latency"}));
  probes.push_back(make_derived_line_probe("l2", {"l2.line", "l2.fetch"}));
  probes.push_back(make_write_policy_probe("l1", {}));
  probes.push_back(make_write_policy_probe("l2", {"l2.bandwidth", "dram.bandwidth"}));
}

}  // namespace gputopo::discovery
