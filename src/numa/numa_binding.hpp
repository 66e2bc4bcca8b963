#pragma once

#include <cstddef>
#include <string>

// Host memory bound to a NUMA node through hwloc, loaded at run time as for locality.hpp.
namespace gputopo::numa {

// Binds the pages of [address, address + bytes) to the NUMA node of OS index `node`
// (hwloc_set_area_membind: bind, strict, migrate pages already there). Returns "" when bound,
// else why not (hwloc not found, no such node, the kernel refused).
std::string bind_to_numa_node(void* address, std::size_t bytes, int node,
                              const std::string& library = "libhwloc.so.15");

}  // namespace gputopo::numa
