#include "discovery/probes/mall/mall_probes.hpp"

#include "model/vendor.hpp"

namespace gputopo::discovery {

void add_mall_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo& info) {
  if (!model::is_amd(info)) return;
  probes.push_back(make_mall_size_probe());
  probes.push_back(make_mall_latency_probe());
}

}  // namespace gputopo::discovery
