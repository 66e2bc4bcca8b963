#include "host/locality.hpp"

#include <dlfcn.h>
#include <hwloc.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace gputopo::host {
namespace {

// The hwloc functions used, looked up in the library loaded at run time. Only hwloc's header
// (its types and constants) is used at build time; nothing links against libhwloc.
struct Hwloc {
  void* lib = nullptr;
  unsigned (*api_version)() = nullptr;
  int (*init)(hwloc_topology_t*) = nullptr;
  int (*set_io_filter)(hwloc_topology_t, enum hwloc_type_filter_e) = nullptr;
  int (*load)(hwloc_topology_t) = nullptr;
  void (*destroy)(hwloc_topology_t) = nullptr;
  int (*type_depth)(hwloc_topology_t, hwloc_obj_type_t) = nullptr;
  unsigned (*count_at)(hwloc_topology_t, int) = nullptr;
  hwloc_obj_t (*obj_at)(hwloc_topology_t, int, unsigned) = nullptr;
  int (*list)(char**, hwloc_const_bitmap_t) = nullptr;

  ~Hwloc() {
    if (lib) dlclose(lib);
  }
};

template <class F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

std::string listed(const Hwloc& h, hwloc_const_bitmap_t set) {
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
  Hwloc h;
  h.lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h.lib == nullptr) return fail("hwloc not found (" + library + ")");
  if (!bind(h.lib, "hwloc_get_api_version", h.api_version) ||
      !bind(h.lib, "hwloc_topology_init", h.init) ||
      !bind(h.lib, "hwloc_topology_set_io_types_filter", h.set_io_filter) ||
      !bind(h.lib, "hwloc_topology_load", h.load) ||
      !bind(h.lib, "hwloc_topology_destroy", h.destroy) ||
      !bind(h.lib, "hwloc_get_type_depth", h.type_depth) ||
      !bind(h.lib, "hwloc_get_nbobjs_by_depth", h.count_at) ||
      !bind(h.lib, "hwloc_get_obj_by_depth", h.obj_at) ||
      !bind(h.lib, "hwloc_bitmap_list_asprintf", h.list))
    return fail("hwloc found but lacks a function gputopo uses (" + library + ")");
  if ((h.api_version() >> 16) != (HWLOC_API_VERSION >> 16))
    return fail("hwloc found with another API version than the 2.x gputopo reads");
  hwloc_topology_t topology = nullptr;
  if (h.init(&topology) != 0) return fail("hwloc could not start a topology");
  std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> owner(topology, h.destroy);
  h.set_io_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (h.load(topology) != 0) return fail("hwloc could not read this host's topology");
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

}  // namespace gputopo::host
