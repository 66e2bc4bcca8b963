#include "device/sim/layout.hpp"

#include <algorithm>

namespace gputopo::device::sim {

Topology build_topology(const LayoutSpec& layout, int sm_count) {
  Topology t;
  const auto gpcs = layout.gpc_tpcs.size();
  t.gpc_of_sm.assign(static_cast<std::size_t>(sm_count), 0);
  t.gpc_sms.assign(gpcs, {});
  std::vector<int> filled(gpcs, 0);
  std::size_t next = 0;
  for (int first = 0; first < sm_count; first += layout.sms_per_tpc) {
    while (filled[next] >= layout.gpc_tpcs[next]) next = (next + 1) % gpcs;
    ++filled[next];
    for (int sm = first; sm < first + layout.sms_per_tpc && sm < sm_count; ++sm) {
      t.gpc_of_sm[static_cast<std::size_t>(sm)] = static_cast<int>(next);
      t.gpc_sms[next].push_back(sm);
    }
    next = (next + 1) % gpcs;
  }
  std::vector<std::vector<int>> lone;
  for (std::size_t g = 0; g < gpcs; ++g) {
    const auto& sms = t.gpc_sms[g];
    const int lone_tpcs = g < layout.lone_tpcs.size() ? layout.lone_tpcs[g] : 0;
    const auto keep =
        sms.size() - std::min(sms.size(), static_cast<std::size_t>(lone_tpcs) *
                                              static_cast<std::size_t>(layout.sms_per_tpc));
    t.cluster_units.emplace_back(sms.begin(), sms.begin() + static_cast<std::ptrdiff_t>(keep));
    for (std::size_t first = keep; first < sms.size();
         first += static_cast<std::size_t>(layout.sms_per_tpc))
      lone.emplace_back(
          sms.begin() + static_cast<std::ptrdiff_t>(first),
          sms.begin() + static_cast<std::ptrdiff_t>(std::min(
                            sms.size(), first + static_cast<std::size_t>(layout.sms_per_tpc))));
  }
  t.cluster_units.insert(t.cluster_units.end(), lone.begin(), lone.end());
  return t;
}

std::vector<std::vector<int>> cluster_groups(const LayoutSpec& layout, const Topology& topology,
                                             int cluster_size) {
  std::vector<std::vector<int>> groups;
  if (cluster_size < 1 || cluster_size > layout.max_cluster_size) return groups;
  for (const auto& sms : topology.cluster_units) {
    const auto size = static_cast<std::size_t>(cluster_size);
    for (std::size_t first = 0; first + size <= sms.size(); first += size)
      groups.emplace_back(sms.begin() + static_cast<std::ptrdiff_t>(first),
                          sms.begin() + static_cast<std::ptrdiff_t>(first + size));
  }
  return groups;
}

}  // namespace gputopo::device::sim
