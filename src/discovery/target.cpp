#include "discovery/target.hpp"

namespace gputopo::discovery {

std::vector<Target> l1_family_targets(std::uint64_t constant_bytes) {
  using device::Space;
  const std::uint64_t constant_limit = constant_bytes ? constant_bytes : 64 * 1024;
  return {
      {"l1", Space::L1, 1, "", 0, true},
      {"texture", Space::Texture, 1, "", 0, true},
      {"readOnly", Space::ReadOnly, 1, "", 0, true},
      {"constantL1", Space::Constant, 1, "", constant_limit, false},
      {"constantL15", Space::Constant, 2, "constantL1", constant_limit, false},
  };
}

std::vector<std::string> element_keys(const std::vector<Target>& targets) {
  std::vector<std::string> keys;
  for (const auto& t : targets) keys.push_back(t.element);
  return keys;
}

std::vector<std::string> sharing_candidates() {
  return {"l1", "texture", "readOnly", "constantL1"};
}

}  // namespace gputopo::discovery
