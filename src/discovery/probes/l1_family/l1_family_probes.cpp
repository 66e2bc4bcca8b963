#include "discovery/probes/l1_family/l1_family_probes.hpp"

#include <algorithm>
#include <utility>

#include "model/vendor.hpp"

namespace gputopo::discovery {

std::string probe_name(const Target& t, const std::string& kind) { return t.element + "." + kind; }

namespace {

// The earlier sharing candidates that could be the same physical cache as `t` (level-1 views the
// carve-out applies to alike, with no space limit): their sizes are tested on `t` first.
std::vector<Target> one_cache_candidates(const Target& t, const std::vector<Target>& earlier) {
  std::vector<Target> out;
  if (t.level != 1 || t.space_limit_bytes) return out;
  for (const Target& e : earlier)
    if (e.level == 1 && !e.space_limit_bytes && e.carveout_applies == t.carveout_applies)
      out.push_back(e);
  return out;
}

}  // namespace

void add_l1_family_probes(std::vector<std::unique_ptr<Probe>>& probes,
                          const device::DeviceInfo& info) {
  std::vector<Target> sharing_targets;
  const auto candidates = sharing_candidates(info);
  for (const Target& t : l1_family_targets(info)) {
    if (t.space == device::Space::L1) probes.push_back(make_l1_cached_probe(t));
    probes.push_back(make_fetch_probe(t));
    const auto one_cache_with = one_cache_candidates(t, sharing_targets);
    probes.push_back(make_size_probe(t, one_cache_with));
    if (t.level == 1) probes.push_back(make_line_probe(t, one_cache_with));
    probes.push_back(make_latency_probe(t));
    if (t.level > 1) probes.push_back(make_presence_probe(t));
    if (t.level == 1) {
      probes.push_back(make_miss_penalty_probe(t));
      probes.push_back(make_amount_probe(t));
    }
    if (t.shared_among_sms) probes.push_back(make_sm_sharing_probe(t, {}));
    if (std::find(candidates.begin(), candidates.end(), t.element) != candidates.end())
      sharing_targets.push_back(t);
  }
  probes.push_back(make_sharing_probe(sharing_targets));
  probes.push_back(make_physical_cache_probe(std::move(sharing_targets)));
  const std::string shared(model::shared_memory_element(info));
  probes.push_back(make_shared_memory_probe(shared));
  probes.push_back(make_l1_bandwidth_probe());
  probes.push_back(make_shared_bandwidth_probe(shared));
}

}  // namespace gputopo::discovery
