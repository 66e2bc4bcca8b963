#include "analysis/latency_classes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "analysis/distributions.hpp"
#include "analysis/summary.hpp"

namespace gputopo::analysis {
namespace {

using Samples = std::vector<std::vector<std::vector<double>>>;

// One sample's noise on each SM: |x_i - x_j| of two repeats of one cell is half-normal of scale
// sigma sqrt(2), whose median is 0.954 sigma; a rare slow load moves the median little.
std::vector<double> noise_of_sms(const Samples& s, double floor) {
  std::vector<double> sd(s.front().size(), floor);
  for (std::size_t m = 0; m < sd.size(); ++m) {
    std::vector<double> gaps;
    for (const auto& line : s)
      for (std::size_t i = 0; i < line[m].size(); ++i)
        for (std::size_t j = i + 1; j < line[m].size(); ++j)
          gaps.push_back(std::abs(line[m][i] - line[m][j]));
    if (!gaps.empty()) sd[m] = std::max(floor, median(gaps) / (0.6745 * std::numbers::sqrt2));
  }
  return sd;
}

struct WardMerge {
  int a = 0, b = 0;  // the nodes merged (lines 0..n-1, merge k makes node n + k)
};

// Ward's method by nearest-neighbour chains: cost(A, B) = nA nB / (nA + nB) |cA - cB|^2. Merges
// come children first.
std::vector<WardMerge> ward_merges(std::vector<std::vector<double>> centroid) {
  const std::size_t n = centroid.size();
  std::vector<double> size(n, 1);
  std::vector<bool> active(n, true);
  std::vector<int> node(n);
  for (std::size_t i = 0; i < n; ++i) node[i] = static_cast<int>(i);
  const auto cost = [&](std::size_t a, std::size_t b) {
    double d = 0;
    for (std::size_t k = 0; k < centroid[a].size(); ++k) {
      const double x = centroid[a][k] - centroid[b][k];
      d += x * x;
    }
    return size[a] * size[b] / (size[a] + size[b]) * d;
  };
  std::vector<WardMerge> merges;
  std::vector<std::size_t> chain;
  while (merges.size() + 1 < n) {
    if (chain.empty())
      chain.push_back(
          static_cast<std::size_t>(std::find(active.begin(), active.end(), true) - active.begin()));
    const std::size_t top = chain.back();
    std::size_t best = top;
    double best_cost = std::numeric_limits<double>::infinity();
    if (chain.size() > 1) best = chain[chain.size() - 2], best_cost = cost(top, best);
    for (std::size_t c = 0; c < n; ++c)
      if (active[c] && c != top) {
        const double d = cost(top, c);
        if (d < best_cost) best = c, best_cost = d;
      }
    if (chain.size() < 2 || best != chain[chain.size() - 2]) {
      chain.push_back(best);
      continue;
    }
    chain.resize(chain.size() - 2);
    for (std::size_t k = 0; k < centroid[top].size(); ++k)
      centroid[best][k] = (size[best] * centroid[best][k] + size[top] * centroid[top][k]) /
                          (size[best] + size[top]);
    size[best] += size[top];
    active[top] = false;
    merges.push_back({node[best], node[top]});
    node[best] = static_cast<int>(n + merges.size() - 1);
  }
  return merges;
}

// The tree built on one half of the repeats is cut where the other half, whose noise the tree
// never saw, shows a split: from the root down, a node's two sides stay apart while their
// held-out centroids differ by a chi-square over `critical`.
struct HeldOutCut {
  std::vector<std::vector<int>> classes;
  double weakest_split = 0, strongest_merge = 0;
};

HeldOutCut cut_tree(const std::vector<WardMerge>& merges,
                    const std::vector<std::vector<double>>& held, double critical) {
  const std::size_t n = held.size();
  std::vector<std::vector<int>> members(n + merges.size());
  for (std::size_t i = 0; i < n; ++i) members[i] = {static_cast<int>(i)};
  for (std::size_t k = 0; k < merges.size(); ++k) {
    auto& m = members[n + k];
    for (const int side : {merges[k].a, merges[k].b})
      m.insert(m.end(), members[static_cast<std::size_t>(side)].begin(),
               members[static_cast<std::size_t>(side)].end());
  }
  const auto centroid = [&](const std::vector<int>& of) {
    std::vector<double> c(held.front().size(), 0);
    for (const int l : of)
      for (std::size_t m = 0; m < c.size(); ++m) c[m] += held[static_cast<std::size_t>(l)][m];
    for (double& v : c) v /= static_cast<double>(of.size());
    return c;
  };
  HeldOutCut cut;
  cut.weakest_split = std::numeric_limits<double>::infinity();
  std::vector<std::size_t> todo{members.size() - 1};
  while (!todo.empty()) {
    const std::size_t at = todo.back();
    todo.pop_back();
    if (at < n) {
      cut.classes.push_back(members[at]);
      continue;
    }
    const WardMerge& m = merges[at - n];
    const auto& a = members[static_cast<std::size_t>(m.a)];
    const auto& b = members[static_cast<std::size_t>(m.b)];
    const auto ca = centroid(a), cb = centroid(b);
    double t = 0;
    for (std::size_t k = 0; k < ca.size(); ++k) t += (ca[k] - cb[k]) * (ca[k] - cb[k]);
    t *= static_cast<double>(a.size() * b.size()) / static_cast<double>(a.size() + b.size());
    if (t > critical) {
      cut.weakest_split = std::min(cut.weakest_split, t);
      todo.push_back(static_cast<std::size_t>(m.a));
      todo.push_back(static_cast<std::size_t>(m.b));
    } else {
      cut.strongest_merge = std::max(cut.strongest_merge, t);
      cut.classes.push_back(members[at]);
    }
  }
  if (cut.classes.size() == 1) cut.weakest_split = 0;
  return cut;
}

void class_map(const std::vector<std::vector<double>>& cell, const std::vector<double>& cell_var,
               LatencyClasses& out) {
  const std::size_t sms = cell_var.size();
  out.mean.assign(sms, std::vector<double>(static_cast<std::size_t>(out.count), 0));
  out.half = out.mean;
  for (std::size_t l = 0; l < cell.size(); ++l)
    for (std::size_t m = 0; m < sms; ++m)
      out.mean[m][static_cast<std::size_t>(out.label[l])] += cell[l][m];
  for (std::size_t m = 0; m < sms; ++m)
    for (std::size_t k = 0; k < out.sizes.size(); ++k) {
      out.mean[m][k] /= out.sizes[k];
      out.half[m][k] = 1.96 * std::sqrt(cell_var[m] / out.sizes[k]);
    }
}

// Neither the weakest split (Bonferroni over the lines) nor the strongest merge (the largest of
// as many null chi-squares) may look like noise.
double class_confidence(const LatencyClasses& c, std::size_t lines, double alpha) {
  const auto n = static_cast<double>(lines);
  double split = 1;
  if (c.count > 1) split = 1 - std::min(1.0, n * chi2_sf(c.weakest_split, c.dof));
  const double max_p = 1 - std::pow(1 - chi2_sf(c.strongest_merge, c.dof), n);
  return std::clamp(split * std::min(1.0, max_p / (5 * alpha)), 0.0, 0.99);
}

// The variance of a cell's value (the lower median of r samples) over one sample's: the lower of
// two is their minimum (1 - 1/pi), a median of more about pi / (2 r).
double value_variance(std::size_t r) {
  if (r <= 1) return 1.0;
  if (r == 2) return 1 - 1 / std::numbers::pi;
  return std::numbers::pi / (2 * static_cast<double>(r));
}

double lower_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

// Cells of one half of each cell's repeats (first: the first half; else the rest), each SM's
// values divided by the standard deviation of such a cell. A rare slow load (which only ever
// slows) moves a lower median little.
std::vector<std::vector<double>> whitened_half(const Samples& s, const std::vector<double>& sd,
                                               bool first) {
  std::vector<std::vector<double>> out(s.size(), std::vector<double>(sd.size()));
  for (std::size_t l = 0; l < s.size(); ++l)
    for (std::size_t m = 0; m < sd.size(); ++m) {
      const auto& v = s[l][m];
      const auto mid = static_cast<std::ptrdiff_t>(v.size() / 2);
      std::vector<double> half(first ? v.begin() : v.begin() + mid,
                               first ? v.begin() + mid : v.end());
      const double var = value_variance(half.size()) * sd[m] * sd[m];
      out[l][m] = lower_median(std::move(half)) / std::sqrt(var);
    }
  return out;
}

// Each line moves to the class whose centroid (all repeats) lies nearest, until none moves: the
// tree, built on half the repeats, can leave a line of one class in a neighbour.
void refine(const std::vector<std::vector<double>>& white, int count, std::vector<int>& label) {
  const std::size_t sms = white.front().size();
  for (int pass = 0; pass < 20; ++pass) {
    std::vector<std::vector<double>> centroid(static_cast<std::size_t>(count),
                                              std::vector<double>(sms, 0));
    std::vector<double> size(static_cast<std::size_t>(count), 0);
    for (std::size_t l = 0; l < white.size(); ++l) {
      const auto k = static_cast<std::size_t>(label[l]);
      size[k] += 1;
      for (std::size_t m = 0; m < sms; ++m) centroid[k][m] += white[l][m];
    }
    for (std::size_t k = 0; k < centroid.size(); ++k)
      for (double& v : centroid[k]) v /= std::max(1.0, size[k]);
    bool moved = false;
    for (std::size_t l = 0; l < white.size(); ++l) {
      int best = label[l];
      double best_d = std::numeric_limits<double>::infinity();
      for (std::size_t k = 0; k < centroid.size(); ++k) {
        if (size[k] == 0) continue;
        double d = 0;
        for (std::size_t m = 0; m < sms; ++m)
          d += (white[l][m] - centroid[k][m]) * (white[l][m] - centroid[k][m]);
        if (d < best_d) best_d = d, best = static_cast<int>(k);
      }
      moved = moved || best != label[l];
      label[l] = best;
    }
    if (!moved) return;
  }
}

// Classes numbered in order of their first line; returns their sizes.
std::vector<int> renumber(std::vector<int>& label) {
  std::vector<int> number(label.size() + 1, -1), sizes;
  for (int& k : label) {
    int& n = number[static_cast<std::size_t>(k)];
    if (n < 0) n = static_cast<int>(sizes.size()), sizes.push_back(0);
    k = n;
    ++sizes[static_cast<std::size_t>(n)];
  }
  return sizes;
}

}  // namespace

LatencyClasses latency_classes(const Samples& samples, const LatencyClassOptions& options) {
  LatencyClasses out;
  const std::size_t lines = samples.size();
  out.label.assign(lines, 0);
  out.count = 1;
  out.sizes = {static_cast<int>(lines)};
  if (lines < 2 || samples.front().size() < 2) return out;
  const std::size_t sms = samples.front().size();
  out.dof = static_cast<int>(sms);
  out.sample_sd = noise_of_sms(samples, options.min_sample_sd);
  out.critical = chi2_isf(options.alpha / static_cast<double>(lines), out.dof);
  const HeldOutCut cut = cut_tree(ward_merges(whitened_half(samples, out.sample_sd, true)),
                                  whitened_half(samples, out.sample_sd, false), out.critical);
  out.weakest_split = cut.weakest_split;
  out.strongest_merge = cut.strongest_merge;
  for (std::size_t k = 0; k < cut.classes.size(); ++k)
    for (const int l : cut.classes[k]) out.label[static_cast<std::size_t>(l)] = static_cast<int>(k);
  std::vector<double> cell_var(sms);
  std::vector<std::vector<double>> cell(lines, std::vector<double>(sms)), white = cell;
  for (std::size_t m = 0; m < sms; ++m) {
    cell_var[m] = value_variance(samples.front()[m].size()) * out.sample_sd[m] * out.sample_sd[m];
    for (std::size_t l = 0; l < lines; ++l) {
      cell[l][m] = lower_median(samples[l][m]);
      white[l][m] = cell[l][m] / std::sqrt(cell_var[m]);
    }
  }
  refine(white, static_cast<int>(cut.classes.size()), out.label);
  out.sizes = renumber(out.label);
  out.count = static_cast<int>(out.sizes.size());
  class_map(cell, cell_var, out);
  out.confidence = class_confidence(out, lines, options.alpha);
  return out;
}

}  // namespace gputopo::analysis
