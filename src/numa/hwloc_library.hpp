#pragma once

#include <hwloc.h>

#include <memory>
#include <string>

// hwloc loaded at run time: only its header (types, constants) is used at build time and nothing
// links against libhwloc, so the binary starts where hwloc is absent.
namespace gputopo::numa {

// The hwloc functions gputopo uses, looked up in `library`; with them, a loaded topology of this
// host. error() says why they cannot be used ("" when they can).
class HwlocLibrary {
 public:
  // `io_devices`: keep the important I/O objects (PCI devices) in the topology.
  HwlocLibrary(const std::string& library, bool io_devices);
  ~HwlocLibrary();
  HwlocLibrary(const HwlocLibrary&) = delete;
  HwlocLibrary& operator=(const HwlocLibrary&) = delete;

  const std::string& error() const { return error_; }
  hwloc_topology_t topology() const { return topology_; }

  int (*type_depth)(hwloc_topology_t, hwloc_obj_type_t) = nullptr;
  unsigned (*count_at)(hwloc_topology_t, int) = nullptr;
  hwloc_obj_t (*obj_at)(hwloc_topology_t, int, unsigned) = nullptr;
  int (*list)(char**, hwloc_const_bitmap_t) = nullptr;
  hwloc_bitmap_t (*alloc)() = nullptr;
  void (*free)(hwloc_bitmap_t) = nullptr;
  int (*only)(hwloc_bitmap_t, unsigned) = nullptr;
  int (*intersects)(hwloc_const_bitmap_t, hwloc_const_bitmap_t) = nullptr;
  hwloc_const_nodeset_t (*topology_nodeset)(hwloc_topology_t) = nullptr;
  int (*set_area_membind)(hwloc_topology_t, const void*, size_t, hwloc_const_bitmap_t,
                          hwloc_membind_policy_t, int) = nullptr;

 private:
  void* lib_ = nullptr;
  hwloc_topology_t topology_ = nullptr;
  void (*destroy_)(hwloc_topology_t) = nullptr;
  std::string error_;
};

}  // namespace gputopo::numa
