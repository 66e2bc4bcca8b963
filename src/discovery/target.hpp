#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device/info.hpp"
#include "device/requests.hpp"

namespace gputopo::discovery {

// One cache as a probe sees it: the report element, the memory space whose loads reach it, and how
// deep it sits behind that space. The L1-family probes are generic over targets; they never
// special-case an element.
struct Target {
  std::string element;  // report key: "l1", "texture", "readOnly", "constantL1", ...
  device::Space space = device::Space::L1;
  // 1: the first cache the space's loads reach; 2: the cache behind it (constant L1.5). A level-2
  // target finds its level-1 sibling's results under `inner`.
  int level = 1;
  std::string inner;  // element key of the level in front of this one ("" for level 1)
  // Largest array the space can address (64 KiB for constant memory); 0 for no limit.
  std::uint64_t space_limit_bytes = 0;
  // Whether the carve-out applies (the L1/shared split decides this cache's size).
  bool carveout_applies = false;
  // Whether several SMs may share one instance (AMD's scalar L1, shared by a few CUs): the
  // discovery then finds which SMs share it.
  bool shared_among_sms = false;
};

// The caches in front of the L2, in report order: NVIDIA's L1, texture, read-only, constant L1 and
// L1.5; AMD's vector L1 (global loads, "l1") and scalar L1 (scalar loads, the Constant space,
// "scalarL1").
std::vector<Target> l1_family_targets(const device::DeviceInfo& info);

// The L2 as a chase target: L2-only loads.
Target l2_target();

// The element keys of `targets`, in their order.
std::vector<std::string> element_keys(const std::vector<Target>& targets);

// The targets whose physical sharing is tested against each other.
std::vector<std::string> sharing_candidates(const device::DeviceInfo& info);

}  // namespace gputopo::discovery
