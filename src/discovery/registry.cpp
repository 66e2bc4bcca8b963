#include "discovery/registry.hpp"

#include "discovery/probes/compute/compute_probes.hpp"
#include "discovery/probes/dram/dram_probes.hpp"
#include "discovery/probes/geometry/geometry_probes.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/probes/l2/l2_probes.hpp"
#include "discovery/probes/layout/layout_probes.hpp"
#include "discovery/probes/mall/mall_probes.hpp"
#include "discovery/probes/tlb/tlb_probes.hpp"
#include "model/vendor.hpp"

namespace gputopo::discovery {

// One line a family; the order is the report order of their elements (the L2's and the memory-side
// cache's before device memory's, whose probes the L2 latency needs).
std::vector<std::unique_ptr<Probe>> registered_probes(const device::DeviceInfo& info) {
  std::vector<std::unique_ptr<Probe>> probes;
  add_l1_family_probes(probes, info);
  add_l2_probes(probes, info);
  add_mall_probes(probes, info);
  add_dram_probes(probes, info);
  add_tlb_probes(probes, info);
  // The layout (TPCs and GPCs through clusters) and the compute ops (PTX) are NVIDIA's.
  if (!model::is_amd(info)) {
    add_layout_probes(probes, info);
    add_compute_probes(probes, info);
  }
  add_geometry_probes(probes, info);
  return probes;
}

}  // namespace gputopo::discovery
