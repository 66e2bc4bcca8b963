#include "analysis/profile_groups.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace gputopo::analysis {
namespace {

using Matrix = std::vector<std::vector<double>>;

// Columns centred over the rows, then each row centred and scaled to unit length.
Matrix normalized(const Matrix& rows) {
  const std::size_t n = rows.size(), m = rows[0].size();
  Matrix z = rows;
  for (std::size_t c = 0; c < m; ++c) {
    double mean = 0;
    for (const auto& r : rows) mean += r[c] / static_cast<double>(n);
    for (auto& r : z) r[c] -= mean;
  }
  for (auto& r : z) {
    const double mean = std::accumulate(r.begin(), r.end(), 0.0) / static_cast<double>(m);
    double norm = 0;
    for (double& v : r) {
      v -= mean;
      norm += v * v;
    }
    norm = std::sqrt(norm);
    for (double& v : r) v = norm > 0 ? v / norm : 0;
  }
  return z;
}

Matrix correlation_distances(const Matrix& z) {
  const std::size_t n = z.size();
  Matrix d(n, std::vector<double>(n, 0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      double dot = 0;
      for (std::size_t c = 0; c < z[i].size(); ++c) dot += z[i][c] * z[j][c];
      d[i][j] = d[j][i] = 1 - dot;
    }
  return d;
}

struct Merge {
  std::size_t into, from;
  double height;
};

// Average linkage (Lance-Williams update); merges in the order made, heights non-decreasing.
std::vector<Merge> average_linkage(Matrix d) {
  const std::size_t n = d.size();
  std::vector<bool> active(n, true);
  std::vector<double> size(n, 1);
  std::vector<Merge> merges;
  for (std::size_t step = 0; step + 1 < n; ++step) {
    Merge best{0, 0, std::numeric_limits<double>::infinity()};
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; active[i] && j < n; ++j)
        if (active[j] && d[i][j] < best.height) best = {i, j, d[i][j]};
    const std::size_t a = best.into, b = best.from;
    for (std::size_t k = 0; k < n; ++k) {
      if (!active[k] || k == a || k == b) continue;
      d[a][k] = d[k][a] = (size[a] * d[a][k] + size[b] * d[b][k]) / (size[a] + size[b]);
    }
    size[a] += size[b];
    active[b] = false;
    merges.push_back(best);
  }
  return merges;
}

// Labels after the first `count` merges, numbered by first row.
std::vector<int> labels_after(std::size_t n, const std::vector<Merge>& merges, std::size_t count) {
  std::vector<std::size_t> root(n);
  std::iota(root.begin(), root.end(), 0);
  for (std::size_t t = 0; t < count; ++t)
    for (auto& r : root)
      if (r == merges[t].from) r = merges[t].into;
  std::vector<int> label(n, -1), number(n, -1);
  int next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (number[root[i]] < 0) number[root[i]] = next++;
    label[i] = number[root[i]];
  }
  return label;
}

}  // namespace

namespace {

struct Cut {
  std::vector<int> label;  // group of each row
  double ratio = 0;        // next merge over the widest merge inside the groups; 0: no cut
};

// The cut of the average-linkage tree with the largest ratio, over 2 .. n / 2 groups.
Cut best_cut(const Matrix& rows) {
  Cut c;
  const std::size_t n = rows.size();
  if (n < 4) return c;
  const auto merges = average_linkage(correlation_distances(normalized(rows)));
  double widest = 0;
  std::size_t count = 0;
  for (std::size_t t = 0; t + 1 < merges.size(); ++t) {
    widest = std::max(widest, merges[t].height);
    const std::size_t groups = n - t - 1;
    const double ratio = merges[t + 1].height / std::max(widest, 1e-12);
    if (groups <= n / 2 && ratio > c.ratio) c.ratio = ratio, count = t + 1;
  }
  c.label = labels_after(n, merges, count);
  return c;
}

// The largest best-cut ratio of `draws` matrices of independent noise of this shape.
double null_ratio(std::size_t n, std::size_t m, int draws) {
  std::mt19937 rng(12345);
  std::normal_distribution<double> noise(0, 1);
  double worst = 0;
  for (int d = 0; d < draws; ++d) {
    Matrix z(n, std::vector<double>(m));
    for (auto& r : z)
      for (double& v : r) v = noise(rng);
    worst = std::max(worst, best_cut(z).ratio);
  }
  return worst;
}

}  // namespace

ProfileGroups group_profiles(const Matrix& rows, const ProfileGroupOptions& options) {
  ProfileGroups out;
  const std::size_t n = rows.size();
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  out.label.assign(n, 0);
  if (n < 4 || rows[0].size() < 2) {
    out.groups.push_back(all);
    out.reason = "fewer than 4 profiles of 2 or more values";
    return out;
  }
  const Cut cut = best_cut(rows);
  const double need =
      std::max(null_ratio(n, rows[0].size(), options.null_draws), 1.0) * options.min_margin;
  out.margin = cut.ratio / need;
  out.established = out.margin >= 1;
  if (!out.established) {
    out.groups.push_back(all);
    out.reason =
        "the profiles split into no groups clearer than independent noise of the same "
        "shape does";
    return out;
  }
  out.label = cut.label;
  out.groups.resize(
      static_cast<std::size_t>(*std::max_element(cut.label.begin(), cut.label.end())) + 1);
  for (std::size_t i = 0; i < n; ++i)
    out.groups[static_cast<std::size_t>(cut.label[i])].push_back(static_cast<int>(i));
  return out;
}

namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += a[i] * b[i];
  return d;
}

// The unit-length mean of the given rows of z, leaving out row `skip` (-1: none).
std::vector<double> centroid(const Matrix& z, const std::vector<int>& members, int skip) {
  std::vector<double> c(z[0].size(), 0);
  for (int i : members)
    if (i != skip)
      for (std::size_t k = 0; k < c.size(); ++k) c[k] += z[static_cast<std::size_t>(i)][k];
  const double norm = std::sqrt(dot(c, c));
  for (double& v : c) v = norm > 0 ? v / norm : 0;
  return c;
}

// Nearest centroid of row i, its own group's centroid computed without it.
std::size_t nearest(const Matrix& z, const std::vector<std::vector<int>>& groups,
                    const Matrix& centroids, int i, int own) {
  std::size_t best = 0;
  double top = -2;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double r = static_cast<int>(g) == own
                         ? dot(z[static_cast<std::size_t>(i)], centroid(z, groups[g], i))
                         : dot(z[static_cast<std::size_t>(i)], centroids[g]);
    if (r > top) top = r, best = g;
  }
  return best;
}

// Fills the unplaced rows' sets, and own_floor, from the centroids of the sets.
void place_unplaced(const Matrix& z, const std::vector<std::vector<int>>& groups,
                    const std::vector<int>& group_of, ProfilePlacement& out) {
  std::vector<std::vector<int>> members(out.sets.size());
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int i : groups[g]) members[static_cast<std::size_t>(out.set_of_group[g])].push_back(i);
  Matrix centroids;
  for (const auto& m : members) centroids.push_back(centroid(z, m, -1));
  for (std::size_t s = 0; s < members.size(); ++s)
    for (int i : members[s])
      out.own_floor =
          std::min(out.own_floor, dot(z[static_cast<std::size_t>(i)], centroid(z, members[s], i)));
  for (std::size_t i = 0; i < z.size(); ++i) {
    if (group_of[i] >= 0) continue;
    double best = -2, next = -1;
    int set = -1;
    for (std::size_t s = 0; s < centroids.size(); ++s) {
      const double r = dot(z[i], centroids[s]);
      if (r > best)
        next = best, best = r, set = static_cast<int>(s);
      else
        next = std::max(next, r);
    }
    out.unplaced.push_back(static_cast<int>(i));
    out.set_of_unplaced.push_back(best >= out.own_floor ? set : -1);
    out.best.push_back(best);
    out.next.push_back(std::max(next, -1.0));
  }
}

}  // namespace

ProfilePlacement place_by_profile(const Matrix& rows, const std::vector<std::vector<int>>& given) {
  ProfilePlacement out;
  if (rows.size() < 2 || rows[0].size() < 2) return out;
  std::vector<std::vector<int>> groups;  // members that are rows, each in one group at most
  std::vector<bool> seen(rows.size());
  for (const auto& g : given) {
    groups.emplace_back();
    for (int i : g)
      if (i >= 0 && static_cast<std::size_t>(i) < rows.size() && !seen[static_cast<std::size_t>(i)])
        seen[static_cast<std::size_t>(i)] = true, groups.back().push_back(i);
  }
  const Matrix z = normalized(rows);
  Matrix centroids;
  for (const auto& g : groups) centroids.push_back(centroid(z, g, -1));
  std::vector<int> root(groups.size()), group_of(rows.size(), -1);
  std::iota(root.begin(), root.end(), 0);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int i : groups[g]) {
      group_of[static_cast<std::size_t>(i)] = static_cast<int>(g);
      const auto n = nearest(z, groups, centroids, i, static_cast<int>(g));
      ++out.placed_total;
      if (n == g) ++out.placed_agree;
      const int a = root[g], b = root[n];
      for (int& r : root)
        if (r == b) r = a;
    }
  std::vector<int> number(groups.size(), -1);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (number[static_cast<std::size_t>(root[g])] < 0) {
      number[static_cast<std::size_t>(root[g])] = static_cast<int>(out.sets.size());
      out.sets.emplace_back();
    }
    out.set_of_group.push_back(number[static_cast<std::size_t>(root[g])]);
    out.sets[static_cast<std::size_t>(out.set_of_group.back())].push_back(static_cast<int>(g));
  }
  place_unplaced(z, groups, group_of, out);
  return out;
}

namespace {

// Reduces v against a basis kept in reduced form keyed by leading bit; returns the remainder.
std::uint64_t reduce(std::uint64_t v, const std::vector<std::uint64_t>& basis) {
  for (std::uint64_t b : basis)
    if (v & (std::uint64_t{1} << (63 - std::countl_zero(b)))) v ^= b;
  return v;
}

void insert(std::uint64_t v, std::vector<std::uint64_t>& basis) {
  v = reduce(v, basis);
  if (v == 0) return;
  basis.push_back(v);
  std::sort(basis.begin(), basis.end(), std::greater<>());
}

}  // namespace

namespace {

// The line-index offsets x with class(l ^ x) == class(l) for more than half the lines.
std::vector<std::uint64_t> majority_kernel(std::span<const int> line_class) {
  const std::size_t n = line_class.size();
  std::vector<std::uint64_t> kernel;
  for (std::size_t x = 1; x < n; ++x) {
    std::size_t agree = 0;
    for (std::size_t l = 0; l < n; ++l) agree += line_class[l] == line_class[l ^ x];
    if (2 * agree > n) insert(x, kernel);
  }
  return kernel;
}

// Lines whose class is not their coset's most common one, or n where two cosets share one.
std::size_t coset_misfits(std::span<const int> line_class,
                          const std::vector<std::uint64_t>& kernel) {
  std::map<std::uint64_t, std::map<int, std::size_t>> by_coset;
  for (std::size_t l = 0; l < line_class.size(); ++l) ++by_coset[reduce(l, kernel)][line_class[l]];
  std::size_t misfits = 0;
  std::set<int> taken;
  for (const auto& [coset, classes] : by_coset) {
    std::size_t total = 0, most = 0;
    int top = 0;
    for (const auto& [c, count] : classes) {
      total += count;
      if (count > most) most = count, top = c;
    }
    if (!taken.insert(top).second) return line_class.size();
    misfits += total - most;
  }
  return misfits;
}

}  // namespace

XorHash solve_xor_hash(std::span<const int> line_class, double max_misfit_share) {
  XorHash out;
  const std::size_t n = line_class.size();
  if (n < 2 || !std::has_single_bit(n) || n > (std::size_t{1} << 20)) {
    out.reason = "the line classes must cover 2^k lines, 2 <= 2^k <= 2^20";
    return out;
  }
  const int bits = std::countr_zero(n);
  std::vector<std::uint64_t> kernel;
  if (max_misfit_share > 0) {
    kernel = majority_kernel(line_class);
  } else {
    for (std::size_t x = 1; x < n; ++x)
      if (line_class[x] == line_class[0]) insert(x, kernel);
  }
  std::vector<bool> in_kernel(n);
  for (std::size_t x = 0; x < n; ++x) in_kernel[x] = reduce(x, kernel) == 0;
  std::size_t agree = 0, pairs = 0;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b, ++pairs)
      agree += (line_class[a] == line_class[b]) == in_kernel[a ^ b];
  out.consistency = static_cast<double>(agree) / static_cast<double>(pairs);
  out.misfits = agree == pairs ? 0 : static_cast<int>(coset_misfits(line_class, kernel));
  out.linear = static_cast<double>(out.misfits) <= max_misfit_share * static_cast<double>(n) &&
               (agree == pairs || max_misfit_share > 0);
  out.rank = bits - static_cast<int>(kernel.size());
  if (!out.linear) {
    out.reason = "no linear hash: the classes of " +
                 std::to_string(100.0 * (1 - out.consistency)).substr(0, 4) +
                 " % of line pairs contradict the XOR model";
    return out;
  }
  std::vector<std::uint64_t> masks;
  for (std::uint64_t m = 1; m < n; ++m) {
    bool orthogonal = true;
    for (std::uint64_t k : kernel) orthogonal = orthogonal && std::popcount(m & k) % 2 == 0;
    if (orthogonal) insert(m, masks);
  }
  for (std::size_t i = 0; i < masks.size(); ++i)  // fully reduced: no leading bit in another row
    for (std::size_t j = 0; j < masks.size(); ++j)
      if (i != j && (masks[j] & (std::uint64_t{1} << (63 - std::countl_zero(masks[i])))))
        masks[j] ^= masks[i];
  out.masks = masks;
  return out;
}

}  // namespace gputopo::analysis
