#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/info.hpp"
#include "discovery/probe.hpp"
#include "discovery/target.hpp"
#include "model/keys.hpp"

// Inside each cache: sets, ways, index function and replacement policy from fine-grained chases
// (set_geometry_probe.cpp), and the sectors of a line from the line and fetch sizes
// (derived_line_probe.cpp).
namespace gputopo::discovery {

// Registers one geometry probe per cache (the L1 family and the L2's near segment).
void add_geometry_probes(std::vector<std::unique_ptr<Probe>>& probes,
                         const device::DeviceInfo& info);

// One cache as the geometry probe sees it.
struct GeometryTarget {
  Target target;
  const model::Key* size_key = nullptr;  // the capacity the sets and ways divide
};

std::unique_ptr<Probe> make_set_geometry_probe(GeometryTarget t);
// The L2's write policy from its write bandwidth against device memory's (write_policy_probe.cpp).
std::unique_ptr<Probe> make_l2_write_policy_probe();
// Whether a store that misses brings its line in, from stores then loads; for the L1 its write
// policy too, from whether the stores reached the L2 at once (store_probe.cpp).
std::unique_ptr<Probe> make_l2_store_probe();
std::unique_ptr<Probe> make_l1_store_probe();
// Whether the L2's segments index alike: the first segment's stride profile checked from an SM of
// each other segment (segment_hash_probe.cpp; NVIDIA, whose layout probes find the segments).
std::unique_ptr<Probe> make_segment_hash_probe();
std::unique_ptr<Probe> make_derived_line_probe(const std::string& element);

}  // namespace gputopo::discovery
