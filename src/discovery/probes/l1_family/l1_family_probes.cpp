#include "discovery/probes/l1_family/l1_family_probes.hpp"

#include <algorithm>

namespace gputopo::discovery {

std::string probe_name(const Target& t, const std::string& kind) { return t.element + "." + kind; }

std::vector<Target> sharing_targets(const device::DeviceInfo& info) {
  const auto candidates = sharing_candidates(info);
  std::vector<Target> out;
  for (const Target& t : l1_family_targets(info))
    if (std::find(candidates.begin(), candidates.end(), t.element) != candidates.end())
      out.push_back(t);
  return out;
}

std::vector<Target> one_cache_with(const device::DeviceInfo& info, const Target& t) {
  std::vector<Target> out;
  if (t.level != 1 || t.space_limit_bytes) return out;
  const auto candidates = sharing_candidates(info);
  for (const Target& e : l1_family_targets(info)) {
    if (e.element == t.element) break;
    if (std::find(candidates.begin(), candidates.end(), e.element) != candidates.end() &&
        e.level == 1 && !e.space_limit_bytes && e.carveout_applies == t.carveout_applies)
      out.push_back(e);
  }
  return out;
}

}  // namespace gputopo::discovery
