#include "analysis/layout_inference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "analysis/union_find.hpp"

namespace gputopo::analysis {
namespace {

// Largest share of the per-SM latency variance a confirmed grouping may leave inside its groups.
constexpr double kMaxWithinShare = 0.01;
// Confidence of a grouping the latency cannot confirm but other evidence suggests.
constexpr double kUnconfirmed = 0.6;
// Confidence of "every SM its own TPC": it rests on no grouping passing the test, which noise in
// the per-SM latencies alone can bring about, so it is a guess below even odds.
constexpr double kByElimination = 0.3;

struct Grouping {
  std::string method;
  SmGroups groups;
};

// Adds every SM no group holds as a group of its own.
SmGroups complete(SmGroups groups, int sm_count) {
  std::vector<bool> seen(static_cast<std::size_t>(sm_count), false);
  for (const auto& g : groups)
    for (int sm : g)
      if (sm >= 0 && sm < sm_count) seen[static_cast<std::size_t>(sm)] = true;
  for (int sm = 0; sm < sm_count; ++sm)
    if (!seen[static_cast<std::size_t>(sm)]) groups.push_back({sm});
  return groups;
}

bool agrees(double a, double b, double threshold) {
  return !std::isnan(a) && !std::isnan(b) && std::abs(a - b) <= threshold;
}

struct Verdict {
  double within_share = 1;  // within-group variance over total variance (1: groups explain nothing)
  double chance_pair = 1;   // share of measured SM pairs of different groups that agree
};

std::vector<int> group_of_sm(const SmGroups& groups, int n) {
  std::vector<int> group_of(static_cast<std::size_t>(std::max(n, 0)), -1);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int sm : groups[g])
      if (sm >= 0 && sm < n) group_of[static_cast<std::size_t>(sm)] = static_cast<int>(g);
  return group_of;
}

Verdict judge(const SmGroups& groups, const std::vector<double>& latency, double threshold) {
  const int n = static_cast<int>(latency.size());
  const auto group_of = group_of_sm(groups, n);
  Verdict v;
  v.within_share = within_group_variance_share(latency, groups);
  std::size_t across = 0;
  std::size_t across_agree = 0;
  for (int i = 0; i < n; ++i) {
    const double a = latency[static_cast<std::size_t>(i)];
    if (std::isnan(a)) continue;
    for (int j = i + 1; j < n; ++j) {
      const double b = latency[static_cast<std::size_t>(j)];
      if (std::isnan(b) ||
          group_of[static_cast<std::size_t>(i)] == group_of[static_cast<std::size_t>(j)])
        continue;
      ++across;
      if (agrees(a, b, threshold)) ++across_agree;
    }
  }
  v.chance_pair = across ? static_cast<double>(across_agree) / static_cast<double>(across) : 1.0;
  return v;
}

int uniform_size(const SmGroups& groups) {
  if (groups.empty()) return 0;
  const auto size = groups.front().size();
  for (const auto& g : groups)
    if (g.size() != size) return 0;
  return static_cast<int>(size);
}

}  // namespace

double within_group_variance_share(const std::vector<double>& latency, const SmGroups& groups) {
  const int n = static_cast<int>(latency.size());
  const auto group_of = group_of_sm(groups, n);
  double sum = 0;
  std::size_t count = 0;
  std::vector<double> group_sum(groups.size(), 0);
  std::vector<std::size_t> group_n(groups.size(), 0);
  for (int i = 0; i < n; ++i) {
    const double x = latency[static_cast<std::size_t>(i)];
    const int g = group_of[static_cast<std::size_t>(i)];
    if (std::isnan(x) || g < 0) continue;
    sum += x;
    ++count;
    group_sum[static_cast<std::size_t>(g)] += x;
    ++group_n[static_cast<std::size_t>(g)];
  }
  if (count < 2) return 1;
  const double mean = sum / static_cast<double>(count);
  double total = 0;
  double within = 0;
  std::size_t groups_used = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) groups_used += group_n[g] > 0;
  for (int i = 0; i < n; ++i) {
    const double x = latency[static_cast<std::size_t>(i)];
    const int g = group_of[static_cast<std::size_t>(i)];
    if (std::isnan(x) || g < 0) continue;
    const auto gi = static_cast<std::size_t>(g);
    const double group_mean = group_sum[gi] / static_cast<double>(group_n[gi]);
    total += (x - mean) * (x - mean);
    within += (x - group_mean) * (x - group_mean);
  }
  if (total <= 0 || count <= groups_used) return 1;
  // Mean squares, unbiased: past 1 (groups that explain nothing, by chance) it is capped at 1.
  return std::min(1.0, (within / static_cast<double>(count - groups_used)) /
                           (total / static_cast<double>(count - 1)));
}

GpcPartition gpcs_from_clusters(int sm_count, const std::vector<SmGroups>& groups_by_size,
                                std::size_t min_group) {
  GpcPartition out;
  if (sm_count <= 0) return out;
  DisjointSets sets(static_cast<std::size_t>(sm_count));
  std::vector<bool> covered(static_cast<std::size_t>(sm_count), false);
  for (const auto& groups : groups_by_size) {
    for (const auto& g : groups) {
      if (g.size() < min_group) continue;
      int first = -1;
      for (int sm : g) {
        if (sm < 0 || sm >= sm_count) continue;
        covered[static_cast<std::size_t>(sm)] = true;
        if (first < 0)
          first = sm;
        else
          sets.join(static_cast<std::size_t>(sm), static_cast<std::size_t>(first));
      }
    }
  }
  std::map<std::size_t, std::vector<int>> components;
  for (int sm = 0; sm < sm_count; ++sm) {
    if (!covered[static_cast<std::size_t>(sm)]) {
      out.uncovered.push_back(sm);
      continue;
    }
    components[sets.find(static_cast<std::size_t>(sm))].push_back(sm);
  }
  for (auto& [root, sms] : components) out.gpcs.push_back(std::move(sms));
  std::sort(out.gpcs.begin(), out.gpcs.end());
  return out;
}

TpcEstimate tpcs_from_latency(const std::vector<double>& latency, double threshold,
                              const SmGroups& cluster_pairs) {
  const int n = static_cast<int>(latency.size());
  std::vector<Grouping> candidates;
  if (!cluster_pairs.empty())
    candidates.push_back({"thread-block clusters of 2", complete(cluster_pairs, n)});
  for (int k = 2; k <= 4 && k <= n; ++k) {
    Grouping c{"consecutive SM ids in groups of " + std::to_string(k), {}};
    for (int first = 0; first < n; first += k) {
      std::vector<int> g;
      for (int sm = first; sm < std::min(n, first + k); ++sm) g.push_back(sm);
      c.groups.push_back(std::move(g));
    }
    candidates.push_back(std::move(c));
  }

  TpcEstimate best;
  best.reason = "no grouping of SMs is confirmed by the per-SM L2 latency";
  int best_size = 0;
  for (const auto& c : candidates) {
    const Verdict v = judge(c.groups, latency, threshold);
    if (v.within_share > kMaxWithinShare) continue;
    const int size = static_cast<int>(c.groups.front().size());
    if (size <= best_size) continue;
    best_size = size;
    best.established = true;
    best.tpcs = c.groups;
    best.sms_per_tpc = uniform_size(c.groups);
    best.within_share = v.within_share;
    best.chance_pair = v.chance_pair;
    best.confidence = 1 - v.within_share / kMaxWithinShare / 2;
    char share[32];
    std::snprintf(share, sizeof share, "%.1f", 100 * (1 - v.within_share));
    best.method = c.method + ", confirmed: the groups explain " + share +
                  " % of the per-SM L2 near-hit latency variance";
    best.reason.clear();
  }
  if (best.established) return best;

  // Nothing confirmed: either the latency does not tell SMs apart, or no grouping shares it.
  SmGroups singles;
  for (int sm = 0; sm < n; ++sm) singles.push_back({sm});
  const Verdict all = judge(singles, latency, threshold);
  best.chance_pair = all.chance_pair;
  best.within_share = 1;
  if (all.chance_pair < 0.5) {
    best.established = true;
    best.tpcs = singles;
    best.sms_per_tpc = 1;
    best.confidence = kByElimination;
    best.method = "per-SM L2 near-hit latency: no grouping of SMs shares one latency";
    best.reason =
        "each SM is taken as its own TPC; the SMs' latencies differ, but a TPC is only "
        "recognised by a shared latency";
  } else if (!cluster_pairs.empty()) {
    best.established = true;
    best.tpcs = complete(cluster_pairs, n);
    best.sms_per_tpc = uniform_size(best.tpcs);
    best.confidence = kUnconfirmed;
    best.method = "thread-block clusters of 2";
    best.reason = "not confirmed: the per-SM L2 latency does not tell the SMs apart";
  }
  return best;
}

}  // namespace gputopo::analysis
