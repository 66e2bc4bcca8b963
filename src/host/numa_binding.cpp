#include "host/numa_binding.hpp"

#include <dlfcn.h>
#include <hwloc.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace gputopo::host {
namespace {

struct Hwloc {
  void* lib = nullptr;
  unsigned (*api_version)() = nullptr;
  int (*init)(hwloc_topology_t*) = nullptr;
  int (*load)(hwloc_topology_t) = nullptr;
  void (*destroy)(hwloc_topology_t) = nullptr;
  hwloc_bitmap_t (*alloc)() = nullptr;
  void (*free)(hwloc_bitmap_t) = nullptr;
  int (*only)(hwloc_bitmap_t, unsigned) = nullptr;
  int (*intersects)(hwloc_const_bitmap_t, hwloc_const_bitmap_t) = nullptr;
  hwloc_const_nodeset_t (*topology_nodeset)(hwloc_topology_t) = nullptr;
  int (*set_area_membind)(hwloc_topology_t, const void*, size_t, hwloc_const_bitmap_t,
                          hwloc_membind_policy_t, int) = nullptr;

  ~Hwloc() {
    if (lib) dlclose(lib);
  }
};

template <class F>
bool find(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

}  // namespace

std::string bind_to_numa_node(void* address, std::size_t bytes, int node,
                              const std::string& library) {
  if (node < 0) return "no NUMA node given";
  Hwloc h;
  h.lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h.lib == nullptr) return "hwloc not found (" + library + ")";
  if (!find(h.lib, "hwloc_get_api_version", h.api_version) ||
      !find(h.lib, "hwloc_topology_init", h.init) || !find(h.lib, "hwloc_topology_load", h.load) ||
      !find(h.lib, "hwloc_topology_destroy", h.destroy) ||
      !find(h.lib, "hwloc_bitmap_alloc", h.alloc) || !find(h.lib, "hwloc_bitmap_free", h.free) ||
      !find(h.lib, "hwloc_bitmap_only", h.only) ||
      !find(h.lib, "hwloc_bitmap_intersects", h.intersects) ||
      !find(h.lib, "hwloc_topology_get_topology_nodeset", h.topology_nodeset) ||
      !find(h.lib, "hwloc_set_area_membind", h.set_area_membind))
    return "hwloc found but lacks a function gputopo uses (" + library + ")";
  if ((h.api_version() >> 16) != (HWLOC_API_VERSION >> 16))
    return "hwloc found with another API version than the 2.x gputopo uses";
  hwloc_topology_t topology = nullptr;
  if (h.init(&topology) != 0) return "hwloc could not start a topology";
  std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> owner(topology, h.destroy);
  if (h.load(topology) != 0) return "hwloc could not read this host's topology";
  std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> set(h.alloc(), h.free);
  if (!set || h.only(set.get(), static_cast<unsigned>(node)) != 0)
    return "hwloc could not make a node set";
  if (!h.intersects(set.get(), h.topology_nodeset(topology)))
    return "hwloc knows no NUMA node " + std::to_string(node);
  const int flags = HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT | HWLOC_MEMBIND_MIGRATE;
  if (h.set_area_membind(topology, address, bytes, set.get(), HWLOC_MEMBIND_BIND, flags) != 0)
    return "hwloc could not bind the buffer to NUMA node " + std::to_string(node) + ": " +
           std::strerror(errno);
  return "";
}

}  // namespace gputopo::host
