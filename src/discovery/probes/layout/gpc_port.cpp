#include "discovery/probes/layout/gpc_port.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/distributions.hpp"
#include "analysis/summary.hpp"

namespace gputopo::discovery {
namespace {

// The range of 3 normal samples is about 1.69 standard deviations.
constexpr double kRangeOverSd = 1.69;
constexpr double kNoiseFloor = 0.002;

}  // namespace

PortPlacement place_by_port(const analysis::SmGroups& gpcs, const analysis::SmGroups& units,
                            const std::function<SetRate(const std::vector<int>&)>& rate) {
  PortPlacement out;
  out.gpc_of_unit.assign(units.size(), -1);
  out.confidence.assign(units.size(), 0.0);
  std::vector<double> alone, ranges;
  for (const auto& g : gpcs) {
    const SetRate r = rate(g);
    alone.push_back(r.gbps);
    ranges.push_back(r.relative_range);
  }
  std::vector<std::vector<double>> ratio(units.size());
  for (std::size_t u = 0; u < units.size(); ++u)
    for (std::size_t g = 0; g < gpcs.size(); ++g) {
      std::vector<int> set = gpcs[g];
      set.insert(set.end(), units[u].begin(), units[u].end());
      const SetRate r = rate(set);
      ranges.push_back(r.relative_range);
      ratio[u].push_back(alone[g] > 0 ? r.gbps / alone[g] : 0.0);
    }
  // A ratio of two medians: each uncertain by the calls' typical relative noise.
  const double sd = std::sqrt(2.0) * std::max(analysis::median(ranges) / kRangeOverSd, kNoiseFloor);
  // Every GPC's port is taken to carry what the fastest GPC read alone: a GPC the port does not
  // bound yet rises with a unit of its own up to it, and by its share with a unit apart.
  const double port = *std::max_element(alone.begin(), alone.end());
  model::Json per_unit = model::Json::array();
  for (std::size_t u = 0; u < units.size(); ++u) {
    std::vector<std::size_t> sharing;
    double sure = 1;
    for (std::size_t g = 0; g < gpcs.size(); ++g) {
      if (alone[g] <= 0 || ratio[u][g] <= 0) {
        sure = 0;
        continue;
      }
      const double apart = static_cast<double>(gpcs[g].size() + units[u].size()) /
                           static_cast<double>(gpcs[g].size());
      const double shared = std::min(apart, port / alone[g]);
      if (apart - shared < 2 * sd) continue;  // this GPC cannot tell
      const double mid = (apart + shared) / 2;
      if (ratio[u][g] < mid) sharing.push_back(g);
      sure = std::min(sure, analysis::normal_cdf(std::abs(ratio[u][g] - mid) / sd));
    }
    if (sharing.size() == 1) {
      out.gpc_of_unit[u] = static_cast<int>(sharing.front());
      out.confidence[u] = sure;
    }
    per_unit.push_back(
        {{"sms", units[u]},
         {"ratioWithEachGpc", ratio[u]},
         {"gpc", out.gpc_of_unit[u] < 0 ? model::Json() : model::Json(out.gpc_of_unit[u])},
         {"confidence", out.confidence[u]}});
  }
  out.evidence = {{"method",
                   "L2 read rate of each GPC alone and with each loose unit added, equal work a "
                   "SM: a unit with its own path raises it by (n + k) / n, one that shares the "
                   "GPC's port at most to the port's rate (the fastest GPC alone)"},
                  {"gpcGbps", alone},
                  {"ratioSd", sd},
                  {"portGbps", port},
                  {"units", per_unit}};
  return out;
}

}  // namespace gputopo::discovery
