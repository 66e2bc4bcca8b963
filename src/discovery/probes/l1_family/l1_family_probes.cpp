#include "discovery/probes/l1_family/l1_family_probes.hpp"

#include <utility>

#include "model/vendor.hpp"

namespace gputopo::discovery {

std::string probe_name(const Target& t, const std::string& kind) { return t.element + "." + kind; }

void add_l1_family_probes(std::vector<std::unique_ptr<Probe>>& probes,
                          const device::DeviceInfo& info) {
  const auto targets = l1_family_targets(info);
  std::vector<std::string> sharing_needs;
  std::vector<Target> sharing_targets;
  for (const Target& t : targets) {
    const auto n = [&](const std::string& kind) { return probe_name(t, kind); };
    std::vector<std::string> first;  // what every probe of this target waits for
    if (t.space == device::Space::L1) {
      probes.push_back(make_l1_cached_probe(t));
      first.push_back(n("cached"));
    }
    if (t.level > 1) first.push_back(t.inner + ".size");
    auto with = [&](std::vector<std::string> v) {
      v.insert(v.end(), first.begin(), first.end());
      return v;
    };
    probes.push_back(make_fetch_probe(t, with({})));
    probes.push_back(make_size_probe(t, with({n("fetch")})));
    if (t.level == 1) probes.push_back(make_line_probe(t, with({n("fetch"), n("size")})));
    probes.push_back(make_latency_probe(t, with({n("fetch"), n("size")})));
    if (t.level > 1)
      probes.push_back(
          make_presence_probe(t, with({n("fetch"), n("size"), n("latency"), "l2.latency"})));
    if (t.level == 1) {
      probes.push_back(make_miss_penalty_probe(t, with({n("latency"), n("line")})));
      probes.push_back(make_amount_probe(t, with({n("size"), n("line")})));
    }
    if (t.shared_among_sms)
      probes.push_back(make_sm_sharing_probe(t, {}, with({n("size"), n("line")})));
    for (const auto& c : sharing_candidates(info)) {
      if (c == t.element) {
        sharing_targets.push_back(t);
        sharing_needs.push_back(n("size"));
        sharing_needs.push_back(n("line"));
      }
    }
  }
  probes.push_back(make_sharing_probe(sharing_targets, std::move(sharing_needs)));
  probes.push_back(make_physical_cache_probe(std::move(sharing_targets)));
  const std::string shared(model::shared_memory_element(info));
  probes.push_back(make_shared_memory_probe(shared));
  probes.push_back(make_l1_bandwidth_probe({"l1.size"}));
  probes.push_back(make_shared_bandwidth_probe(shared, {}));
}

}  // namespace gputopo::discovery
