#include "discovery/probes/compute/compute_probes.hpp"

#include "discovery/probes/compute/bank_probe.hpp"
#include "discovery/probes/compute/barrier_probe.hpp"
#include "discovery/probes/compute/cluster_probe.hpp"
#include "discovery/probes/compute/constant_sharing_probe.hpp"
#include "discovery/probes/compute/divergence_probe.hpp"
#include "discovery/probes/compute/icache_probe.hpp"
#include "discovery/probes/compute/pipeline_probe.hpp"
#include "discovery/probes/compute/register_read_probe.hpp"
#include "discovery/probes/compute/scheduler_probe.hpp"
#include "discovery/probes/compute/wgmma_probe.hpp"

namespace gputopo::discovery {

void add_compute_probes(std::vector<std::unique_ptr<Probe>>& probes, const device::DeviceInfo&) {
  probes.push_back(make_pipeline_probe());
  probes.push_back(make_bank_probe());
  probes.push_back(make_scheduler_probe());
  probes.push_back(make_register_read_probe());
  probes.push_back(make_barrier_probe());
  probes.push_back(make_divergence_probe());
  probes.push_back(make_cluster_probe());
  probes.push_back(make_wgmma_probe());
  probes.push_back(make_icache_probe());
  probes.push_back(make_constant_sharing_probe());
}

}  // namespace gputopo::discovery
