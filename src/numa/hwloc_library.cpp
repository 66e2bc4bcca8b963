#include "numa/hwloc_library.hpp"

#include <dlfcn.h>

namespace gputopo::numa {
namespace {

template <class F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

}  // namespace

HwlocLibrary::HwlocLibrary(const std::string& library, bool io_devices) {
  lib_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib_ == nullptr) {
    error_ = "hwloc not found (" + library + ")";
    return;
  }
  unsigned (*api_version)() = nullptr;
  int (*init)(hwloc_topology_t*) = nullptr;
  int (*set_io_filter)(hwloc_topology_t, enum hwloc_type_filter_e) = nullptr;
  int (*load)(hwloc_topology_t) = nullptr;
  if (!bind(lib_, "hwloc_get_api_version", api_version) ||
      !bind(lib_, "hwloc_topology_init", init) ||
      !bind(lib_, "hwloc_topology_set_io_types_filter", set_io_filter) ||
      !bind(lib_, "hwloc_topology_load", load) || !bind(lib_, "hwloc_topology_destroy", destroy_) ||
      !bind(lib_, "hwloc_get_type_depth", type_depth) ||
      !bind(lib_, "hwloc_get_nbobjs_by_depth", count_at) ||
      !bind(lib_, "hwloc_get_obj_by_depth", obj_at) ||
      !bind(lib_, "hwloc_bitmap_list_asprintf", list) || !bind(lib_, "hwloc_bitmap_alloc", alloc) ||
      !bind(lib_, "hwloc_bitmap_free", free) || !bind(lib_, "hwloc_bitmap_only", only) ||
      !bind(lib_, "hwloc_bitmap_intersects", intersects) ||
      !bind(lib_, "hwloc_topology_get_topology_nodeset", topology_nodeset) ||
      !bind(lib_, "hwloc_set_area_membind", set_area_membind)) {
    error_ = "hwloc found but lacks a function gputopo uses (" + library + ")";
    return;
  }
  if ((api_version() >> 16) != (HWLOC_API_VERSION >> 16)) {
    error_ = "hwloc found with another API version than the 2.x gputopo uses";
    return;
  }
  if (init(&topology_) != 0) {
    topology_ = nullptr;
    error_ = "hwloc could not start a topology";
    return;
  }
  if (io_devices) set_io_filter(topology_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (load(topology_) != 0) error_ = "hwloc could not read this host's topology";
}

HwlocLibrary::~HwlocLibrary() {
  if (topology_ != nullptr) destroy_(topology_);
  if (lib_ != nullptr) dlclose(lib_);
}

}  // namespace gputopo::numa
