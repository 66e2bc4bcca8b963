#include "discovery/probes/dram/dram_probes.hpp"

#include "model/vendor.hpp"

namespace gputopo::discovery {

void add_dram_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo& info) {
  std::vector<std::string> needs{"l2.fetch", "l2.line"};
  if (model::is_amd(info)) needs.push_back("mall.size");
  probes.push_back(make_dram_latency_probe(std::move(needs)));
  probes.push_back(make_dram_bandwidth_probe({}));
}

}  // namespace gputopo::discovery
