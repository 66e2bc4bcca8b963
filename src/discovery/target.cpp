#include "discovery/target.hpp"

#include "model/vendor.hpp"

namespace gputopo::discovery {

std::vector<Target> l1_family_targets(const device::DeviceInfo& info) {
  using device::Space;
  const std::uint64_t constant_limit = info.constant_bytes() ? info.constant_bytes() : 64 * 1024;
  if (model::is_amd(info))
    return {
        {"l1", Space::L1, 1, "", 0, false, false},
        {"scalarL1", Space::Constant, 1, "", constant_limit, false, true},
    };
  return {
      {"l1", Space::L1, 1, "", 0, true},
      {"texture", Space::Texture, 1, "", 0, true},
      {"readOnly", Space::ReadOnly, 1, "", 0, true},
      {"constantL1", Space::Constant, 1, "", constant_limit, false},
      {"constantL15", Space::Constant, 2, "constantL1", constant_limit, false},
  };
}

Target l2_target() {
  Target t;
  t.element = "l2";
  t.space = device::Space::L2;
  return t;
}

std::vector<std::string> element_keys(const std::vector<Target>& targets) {
  std::vector<std::string> keys;
  for (const auto& t : targets) keys.push_back(t.element);
  return keys;
}

std::vector<std::string> sharing_candidates(const device::DeviceInfo& info) {
  if (model::is_amd(info)) return {"l1", "scalarL1"};
  return {"l1", "texture", "readOnly", "constantL1"};
}

}  // namespace gputopo::discovery
