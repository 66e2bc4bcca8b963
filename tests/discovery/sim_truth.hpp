#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "device/sim/config.hpp"

namespace gputopo::discovery::testing {

// What a simulator configuration says one L1-family element is, read from the config itself.
struct ElementTruth {
  std::string element;
  bool exists = false;       // the space's path has a cache at this level
  std::uint64_t size = 0;    // under the carve-out discovery uses
  bool size_capped = false;  // larger than the space can address: "at least" expected
  std::uint32_t line = 0;
  std::uint32_t fetch = 0;
  std::uint32_t instances = 1;
  std::uint32_t shared_by_sms = 1;  // SMs sharing one instance (AMD's scalar L1)
  bool random_replacement = false;
  double latency = 0;  // mean hit latency in cycles, overhead excluded
  int cache_index = -1;
  int level = 1;         // 2: behind the space's first cache (constant L1.5)
  int inner_index = -1;  // level 2: the cache in front
  std::vector<std::string> shared_with;
};

std::vector<ElementTruth> l1_family_truth(const device::sim::SimConfig& cfg, int carveout_percent);

// The L1-family elements of the configuration's vendor and its shared memory ("shared", AMD's
// "lds"), for Options::only.
std::set<std::string> l1_family_elements(const device::sim::SimConfig& cfg);
// The shared memory's element name on the configuration's GPU.
std::string shared_element(const device::sim::SimConfig& cfg);

}  // namespace gputopo::discovery::testing
