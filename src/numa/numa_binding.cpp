#include "numa/numa_binding.hpp"

#include <cerrno>
#include <cstring>
#include <memory>

#include "numa/hwloc_library.hpp"

namespace gputopo::numa {

std::string bind_to_numa_node(void* address, std::size_t bytes, int node,
                              const std::string& library) {
  if (node < 0) return "no NUMA node given";
  const HwlocLibrary h(library, false);
  if (!h.error().empty()) return h.error();
  hwloc_topology_t topology = h.topology();
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

}  // namespace gputopo::numa
