#include "analysis/cluster_occupancy.hpp"

#include <algorithm>

namespace gputopo::analysis {
namespace {

struct Search {
  const SmGroups& fixed;
  const SmGroups& loose;
  const std::map<int, int>& counts;
  std::size_t limit;
  OccupancyFit fit;
  std::vector<int> target;
  std::vector<int> unit_size;  // the fixed components', then the new units', as assigned so far
  // For each loose group, whether a matching assignment put it in each unit.
  std::vector<std::vector<char>> seen;

  bool matches(std::size_t units) const {
    for (const auto& [k, n] : counts) {
      if (k < 1) return false;
      int at_once = 0;
      for (std::size_t u = 0; u < units; ++u) at_once += unit_size[u] / k;
      if (at_once != n) return false;
    }
    return true;
  }

  void check(int new_units) {
    ++fit.tried;
    const std::size_t units = fixed.size() + static_cast<std::size_t>(new_units);
    if (!matches(units)) return;
    ++fit.matching_count;
    fit.most_new_units = std::max(fit.most_new_units, new_units);
    for (std::size_t i = 0; i < loose.size(); ++i) seen[i][static_cast<std::size_t>(target[i])] = 1;
    if (fit.matching.size() >= OccupancyFit::kKeptMatching) return;
    UnitAssignment a;
    a.target = target;
    a.units = fixed;
    a.units.resize(units);
    for (std::size_t i = 0; i < loose.size(); ++i) {
      auto& unit = a.units[static_cast<std::size_t>(target[i])];
      unit.insert(unit.end(), loose[i].begin(), loose[i].end());
    }
    for (auto& u : a.units) std::sort(u.begin(), u.end());
    fit.matching.push_back(std::move(a));
  }

  // Loose group i joins a fixed component, a new unit opened before it, or opens the next one,
  // so that each partition of the loose groups is visited once.
  void assign(std::size_t i, int new_units) {
    if (fit.tried >= limit) {
      fit.complete = false;
      return;
    }
    if (i == loose.size()) return check(new_units);
    const int options = static_cast<int>(fixed.size()) + new_units + 1;
    const int size = static_cast<int>(loose[i].size());
    for (int t = 0; t < options && fit.complete; ++t) {
      target[i] = t;
      unit_size[static_cast<std::size_t>(t)] += size;
      assign(i + 1, std::max(new_units, t - static_cast<int>(fixed.size()) + 1));
      unit_size[static_cast<std::size_t>(t)] -= size;
    }
  }
};

}  // namespace

std::map<int, int> predicted_cluster_counts(const std::vector<int>& unit_sizes,
                                            const std::vector<int>& sizes) {
  std::map<int, int> out;
  for (int k : sizes) {
    if (k < 1) continue;
    int n = 0;
    for (int s : unit_sizes) n += s / k;
    out[k] = n;
  }
  return out;
}

OccupancyFit fit_cluster_counts(const SmGroups& fixed, const SmGroups& loose,
                                const std::map<int, int>& counts, std::size_t limit) {
  const std::size_t most_units = fixed.size() + loose.size();
  Search s{fixed,
           loose,
           counts,
           limit,
           {},
           std::vector<int>(loose.size(), 0),
           std::vector<int>(most_units, 0),
           std::vector<std::vector<char>>(loose.size(), std::vector<char>(most_units, 0))};
  for (std::size_t i = 0; i < fixed.size(); ++i) s.unit_size[i] = static_cast<int>(fixed[i].size());
  s.assign(0, 0);
  s.fit.targets_of_loose.assign(loose.size(), {});
  for (std::size_t i = 0; i < loose.size(); ++i)
    for (std::size_t t = 0; t < most_units; ++t)
      if (s.seen[i][t]) s.fit.targets_of_loose[i].push_back(static_cast<int>(t));
  return s.fit;
}

}  // namespace gputopo::analysis
