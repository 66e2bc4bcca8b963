#include "analysis/cluster_occupancy.hpp"

#include <algorithm>
#include <set>

namespace gputopo::analysis {
namespace {

struct Search {
  const SmGroups& fixed;
  const SmGroups& loose;
  const std::map<int, int>& counts;
  std::vector<int> sizes;
  std::size_t limit;
  OccupancyFit fit;
  std::vector<int> target;

  std::vector<int> unit_sizes(int new_units) const {
    std::vector<int> s(fixed.size() + static_cast<std::size_t>(new_units), 0);
    for (std::size_t i = 0; i < fixed.size(); ++i) s[i] = static_cast<int>(fixed[i].size());
    for (std::size_t i = 0; i < loose.size(); ++i)
      s[static_cast<std::size_t>(target[i])] += static_cast<int>(loose[i].size());
    return s;
  }

  void check(int new_units) {
    ++fit.tried;
    if (predicted_cluster_counts(unit_sizes(new_units), sizes) != counts) return;
    UnitAssignment a;
    a.target = target;
    a.units = fixed;
    a.units.resize(fixed.size() + static_cast<std::size_t>(new_units));
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
    for (int t = 0; t < options && fit.complete; ++t) {
      target[i] = t;
      assign(i + 1, std::max(new_units, t - static_cast<int>(fixed.size()) + 1));
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
  Search s{fixed, loose, counts, {}, limit, {}, std::vector<int>(loose.size(), 0)};
  for (const auto& [k, n] : counts) s.sizes.push_back(k);
  s.assign(0, 0);
  s.fit.targets_of_loose.assign(loose.size(), {});
  for (std::size_t i = 0; i < loose.size(); ++i) {
    std::set<int> seen;
    for (const auto& a : s.fit.matching) seen.insert(a.target[i]);
    s.fit.targets_of_loose[i].assign(seen.begin(), seen.end());
  }
  return s.fit;
}

}  // namespace gputopo::analysis
