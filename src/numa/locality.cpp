#include "numa/locality.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "numa/hwloc_library.hpp"

namespace gputopo::numa {
namespace {

std::string listed(const HwlocLibrary& h, hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (set == nullptr || h.list(&text, set) < 0 || text == nullptr) return "";
  std::string out(text);
  std::free(text);
  return out;
}

Locality fail(std::string why) {
  Locality l;
  l.reason = std::move(why);
  return l;
}

}  // namespace

Locality locality_of(const std::string& pci_bus_id, const std::string& library) {
  unsigned domain = 0, bus = 0, dev = 0, func = 0;
  if (std::sscanf(pci_bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &func) != 4)
    return fail("the GPU's PCI bus id is not known");
  const HwlocLibrary h(library, true);
  if (!h.error().empty()) return fail(h.error());
  hwloc_topology_t topology = h.topology();
  const int depth = h.type_depth(topology, HWLOC_OBJ_PCI_DEVICE);
  const unsigned n = h.count_at(topology, depth);
  for (unsigned i = 0; i < n; ++i) {
    hwloc_obj_t obj = h.obj_at(topology, depth, i);
    const auto& pci = obj->attr->pcidev;
    if (pci.domain != domain || pci.bus != bus || pci.dev != dev || pci.func != func) continue;
    // I/O objects have no CPU set: the first ancestor that has one is where the device attaches.
    hwloc_obj_t near = obj->parent;
    while (near != nullptr && near->cpuset == nullptr) near = near->parent;
    if (near == nullptr) return fail("hwloc places " + pci_bus_id + " under no CPUs");
    Locality l;
    l.cpus = listed(h, near->cpuset);
    l.numa_nodes = listed(h, near->nodeset);
    l.established = !l.cpus.empty() && !l.numa_nodes.empty();
    if (!l.established) l.reason = "hwloc gives " + pci_bus_id + " no CPU or NUMA node set";
    return l;
  }
  return fail("hwloc does not list the PCI device " + pci_bus_id);
}

}  // namespace gputopo::numa
