#include <algorithm>
#include <map>
#include <set>

#include "report/format.hpp"
#include "report/summary_text.hpp"
#include "report/tree.hpp"

namespace gputopo::report {
namespace {
using model::Attribute;

// "1 x 8, 2 x 18, 5 x 16 SMs": the GPC sizes, equal sizes counted, in order of first appearance.
std::string gpc_sizes(const std::vector<std::vector<int>>& gpcs) {
  std::vector<std::pair<std::size_t, int>> counts;
  for (const auto& g : gpcs) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == g.size(); });
    if (it == counts.end())
      counts.push_back({g.size(), 1});
    else
      ++it->second;
  }
  std::string out;
  for (const auto& [size, n] : counts)
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " x " + std::to_string(size);
  return out + " SMs";
}

// "GPCs 0-3 load through L2 segment 0, GPCs 4-7 through segment 1".
std::string near_segments(const model::Topology& topology,
                          const std::vector<std::vector<int>>& gpcs) {
  const auto of_sm = topology.segment_of_sm();
  std::map<int, std::vector<std::size_t>> by_segment;
  for (std::size_t g = 0; g < gpcs.size(); ++g) {
    const auto sm = static_cast<std::size_t>(gpcs[g].front());
    if (sm < of_sm.size() && of_sm[sm] >= 0) by_segment[of_sm[sm]].push_back(g);
  }
  std::string out;
  for (const auto& [segment, list] : by_segment) {
    std::string ids;
    for (auto g : list) {
      if (!ids.empty()) ids += ',';
      ids += std::to_string(g);
    }
    out += out.empty() ? "near L2 segment: " : "; ";
    out += "GPC " + ids + " -> " + std::to_string(segment);
  }
  return out;
}

}  // namespace

std::string topology_line(const model::Report& r) {
  const Attribute* sms = model::find(r.compute, "smCount");
  if (!sms || !sms->available()) return "";
  const int sm_count = sms->value.get<int>();
  const auto gpcs = r.topology.gpc_sms();
  std::vector<std::string> parts;
  std::size_t placed = 0;
  for (const auto& g : gpcs) placed += g.size();
  if (!gpcs.empty())
    parts.push_back(
        std::to_string(gpcs.size()) + " GPCs of " + gpc_sizes(gpcs) +
        (placed < static_cast<std::size_t>(sm_count)
             ? " + " + std::to_string(sm_count - static_cast<int>(placed)) + " SMs in no GPC found"
             : ""));
  const Attribute* per_tpc = model::find(r.compute, "smsPerTpc");
  if (per_tpc && per_tpc->available())
    parts.push_back("TPCs of " + format_value(per_tpc->value, "") + " SMs");
  const std::string near = near_segments(r.topology, gpcs);
  if (!near.empty()) parts.push_back(near);
  std::string out = std::to_string(sm_count) + " SMs";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : ": ") + parts[i];
  return parts.empty() ? "" : out;
}

}  // namespace gputopo::report
