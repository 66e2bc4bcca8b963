#include "analysis/rise.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "analysis/distributions.hpp"
#include "analysis/parallel.hpp"

namespace gputopo::analysis {
namespace {

constexpr double kTinyWeight = 1e-9;
// Pieces of the piecewise-linear fit, at most: before, steep rise, the slower rest of the rise,
// after.
constexpr std::size_t kPieces = 4;
constexpr std::size_t kNodes = kPieces + 1;
// Sweeps of at least this many points read their knot placements on several threads.
constexpr std::size_t kThreadedPoints = 48;

// Weighted prefix sums of 1, x, x², y, x·y, y² (x centred and scaled), so that a continuous
// piecewise-linear fit with given knots costs O(pieces) instead of O(points).
class PrefixSums {
 public:
  PrefixSums(std::span<const double> x, std::span<const double> y, std::span<const double> w)
      : x_(x.size()), sums_(x.size() + 1) {
    const double origin = x.front();
    const double scale = x.back() > x.front() ? x.back() - x.front() : 1.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      x_[i] = (x[i] - origin) / scale;
      const double xi = x_[i];
      auto& s = sums_[i + 1];
      s = sums_[i];
      s[0] += w[i];
      s[1] += w[i] * xi;
      s[2] += w[i] * xi * xi;
      s[3] += w[i] * y[i];
      s[4] += w[i] * xi * y[i];
      s[5] += w[i] * y[i] * y[i];
    }
  }
  // Sums over the points [from, to).
  std::array<double, 6> over(std::size_t from, std::size_t to) const {
    std::array<double, 6> d{};
    for (std::size_t k = 0; k < 6; ++k) d[k] = sums_[to][k] - sums_[from][k];
    return d;
  }
  double x(std::size_t i) const { return x_[i]; }
  double total_yy() const { return sums_.back()[5]; }

 private:
  std::vector<double> x_;
  std::vector<std::array<double, 6>> sums_;
};

struct PiecewiseFit {
  std::array<std::size_t, kNodes> nodes{};  // point indices of the knots, ascending, unique
  std::size_t count = 0;                    // nodes used
  std::array<double, kNodes> values{};      // fit at each node
  double sse = std::numeric_limits<double>::infinity();
};

// Each piece's share of the normal equations of a weighted least-squares continuous
// piecewise-linear fit (hat-function basis: tridiagonal), for every pair of knots i < j: the piece
// runs over the points [i, j), the last one (j = n - 1) over [i, n). A sweep's few hundred
// thousand placements read them instead of working them out from the prefix sums each time.
class PieceTable {
 public:
  struct Piece {
    double diag_left = 0, off = 0, diag_right = 0, rhs_left = 0, rhs_right = 0;
    bool valid = false;
  };

  PieceTable(const PrefixSums& p, std::size_t n) : n_(n), pieces_(n * n), total_yy_(p.total_yy()) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        const auto s = p.over(i, j + 1 == n ? n : j);
        const double a = p.x(i), length = p.x(j) - a;
        if (!(length > 0)) continue;
        // t = (x - a) / length over the piece; sums of w t, w t², w y t.
        const double st = (s[1] - a * s[0]) / length;
        const double stt = (s[2] - 2 * a * s[1] + a * a * s[0]) / (length * length);
        const double syt = (s[4] - a * s[3]) / length;
        pieces_[i * n + j] = {s[0] - 2 * st + stt, st - stt, stt, s[3] - syt, syt, true};
      }
  }
  const Piece& operator()(std::size_t i, std::size_t j) const { return pieces_[i * n_ + j]; }
  double total_yy() const { return total_yy_; }

 private:
  std::size_t n_;
  std::vector<Piece> pieces_;
  double total_yy_;
};

// The fit with knots at the given point indices. Each point belongs to the piece that starts at
// or before it; a knot point's fit is its node value from either side.
PiecewiseFit fit_knots(const PieceTable& table, std::array<std::size_t, kNodes> nodes,
                       std::size_t count) {
  PiecewiseFit f;
  f.nodes = nodes;
  f.count = count;
  std::array<double, kNodes> diag{}, off{}, rhs{};
  for (std::size_t m = 0; m + 1 < count; ++m) {
    const PieceTable::Piece& piece = table(nodes[m], nodes[m + 1]);
    if (!piece.valid) return f;
    diag[m] += piece.diag_left;
    off[m] += piece.off;
    diag[m + 1] += piece.diag_right;
    rhs[m] += piece.rhs_left;
    rhs[m + 1] += piece.rhs_right;
  }
  // Thomas algorithm for the symmetric tridiagonal system.
  std::array<double, kNodes> c{}, d{};
  for (std::size_t m = 0; m < count; ++m) {
    const double denominator = diag[m] - (m > 0 ? off[m - 1] * c[m - 1] : 0.0);
    if (std::abs(denominator) < 1e-300) return f;
    c[m] = off[m] / denominator;
    d[m] = (rhs[m] - (m > 0 ? off[m - 1] * d[m - 1] : 0.0)) / denominator;
  }
  for (std::size_t m = count; m-- > 0;)
    f.values[m] = d[m] - (m + 1 < count ? c[m] * f.values[m + 1] : 0.0);
  // At the least-squares solution the residual sum is Σwy² - values·rhs.
  double explained = 0;
  for (std::size_t m = 0; m < count; ++m) explained += f.values[m] * rhs[m];
  f.sse = std::max(table.total_yy() - explained, 0.0);
  return f;
}

double z_test_p(double p1, double n1, double p2, double n2) {
  const double pooled = (p1 * n1 + p2 * n2) / std::max(n1 + n2, 1.0);
  const double se = std::sqrt(std::max(pooled * (1 - pooled), 1e-12) * (1 / n1 + 1 / n2));
  return 1 - normal_cdf((p2 - p1) / se);
}

// A placement's fit at any x inside the sweep.
double fit_at(const PiecewiseFit& f, std::span<const double> x, double at) {
  std::size_t m = 1;
  while (m + 1 < f.count && x[f.nodes[m]] < at) ++m;
  const double x0 = x[f.nodes[m - 1]], x1 = x[f.nodes[m]];
  return f.values[m - 1] + (f.values[m] - f.values[m - 1]) * (at - x0) / (x1 - x0);
}

// The first point at or past `at`, or the last point.
std::size_t first_at_or_after(std::span<const double> x, double at) {
  const auto it = std::lower_bound(x.begin(), x.end(), at);
  return it == x.end() ? x.size() - 1 : static_cast<std::size_t>(it - x.begin());
}

// One knot placement, by the piece after its sharpest knot.
struct RiseCandidate {
  double sse = 0;
  std::uint32_t nodes = 0;
  std::uint32_t begin = 0, end = 0;
  double slope = 0;
};

// Calls `visit` with every set of inner knots (strictly between the end points, ascending, at most
// kPieces - 1 of them) whose first inner knot is `first` (0: none), the end points added.
template <typename Visit>
void for_each_knot_set(std::size_t n, std::size_t first, Visit&& visit) {
  std::array<std::size_t, kNodes> nodes{};
  nodes[0] = 0;
  auto extend = [&](auto&& self, std::size_t used, std::size_t from) -> void {
    nodes[used] = n - 1;
    visit(nodes, used + 1);
    if (used == kPieces) return;
    for (std::size_t k = from; k + 1 < n; ++k) {
      nodes[used] = k;
      self(self, used + 1, k + 1);
    }
  };
  if (first == 0) {
    nodes[1] = n - 1;
    visit(nodes, 2);
    return;
  }
  nodes[1] = first;
  extend(extend, 2, first + 1);
}

// One knot placement read by the knot where the slope increases most; nullopt without a rise.
std::optional<RiseCandidate> read_placement(const PieceTable& table, std::span<const double> x,
                                            std::size_t n, double scale,
                                            const std::array<std::size_t, kNodes>& nodes,
                                            std::size_t count) {
  const auto f = fit_knots(table, nodes, count);
  if (!std::isfinite(f.sse)) return std::nullopt;
  RiseCandidate c{f.sse, static_cast<std::uint32_t>(count), 0, 0, 0};
  double piece_before = 0, sharpest = 0;  // slope of the piece left of the knot; best increase
  for (std::size_t m = 0; m + 1 < count; ++m) {
    const double k = x[nodes[m]];
    const double piece = (f.values[m + 1] - f.values[m]) / (x[nodes[m + 1]] - k);
    double before = piece_before, after = piece;
    std::size_t end = nodes[m + 1];
    piece_before = piece;
    if (scale > 0) {
      if (k - scale < x[0] || k + scale > x[n - 1]) continue;
      before = (f.values[m] - fit_at(f, x, k - scale)) / scale;
      after = (fit_at(f, x, k + scale) - f.values[m]) / scale;
      end = first_at_or_after(x, k + scale);
    }
    if (after > 0 && after - before > sharpest) {
      sharpest = after - before;
      c.slope = after;
      c.begin = static_cast<std::uint32_t>(nodes[m]);
      c.end = static_cast<std::uint32_t>(end);
    }
  }
  if (!(c.slope > 0)) return std::nullopt;
  return c;
}

// Every placement of the knots that shows a rise, in one fixed order: by group of first inner
// knot, in turn. Long sweeps (a few hundred thousand placements at 130 points) share the groups
// out among threads, so the order does not depend on the threads. The groups are kept per
// calling thread and reused by its next sweep, which then touches no fresh memory.
using Placements = std::vector<std::vector<RiseCandidate>>;
const Placements& read_placements(const PieceTable& table, std::span<const double> x, std::size_t n,
                                  double scale) {
  thread_local Placements kept;
  Placements& by_group = kept;       // the workers' own thread_local would be another
  const std::size_t groups = n - 1;  // no inner knot, then first inner knots 1 .. n - 2
  if (by_group.size() < groups) by_group.resize(groups);
  for (auto& group : by_group) group.clear();
  parallel_for(
      groups,
      [&](std::size_t g) {
        for_each_knot_set(n, g,
                          [&](const std::array<std::size_t, kNodes>& nodes, std::size_t count) {
                            if (auto c = read_placement(table, x, n, scale, nodes, count))
                              by_group[g].push_back(*c);
                          });
      },
      kThreadedPoints - 1);
  return by_group;
}

// The first point whose fit is significantly above the first point's (one-sided z-test at 0.01,
// the library's usual level); `end` where none before it is.
std::size_t first_lasting_rise(const std::vector<double>& fit, const std::vector<double>& w,
                               std::size_t end) {
  for (std::size_t i = 1; i < end; ++i)
    if (fit[i] > fit[0] && z_test_p(fit[0], w[0], fit[i], w[i]) < 0.01) return i;
  return end;
}

}  // namespace
std::vector<double> isotonic_fit(std::span<const double> y, std::span<const double> weights) {
  struct Block {
    double sum = 0;  // weighted sum
    double weight = 0;
    std::size_t count = 0;
    double mean() const { return sum / weight; }
  };
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double w = i < weights.size() && weights[i] > 0 ? weights[i] : kTinyWeight;
    blocks.push_back({w * y[i], w, 1});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
      const Block b = blocks.back();
      blocks.pop_back();
      blocks.back().sum += b.sum;
      blocks.back().weight += b.weight;
      blocks.back().count += b.count;
    }
  }
  std::vector<double> fit;
  for (const Block& b : blocks) fit.insert(fit.end(), b.count, b.mean());
  return fit;
}

Rise steepest_rise(std::span<const double> x, std::span<const double> fraction,
                   std::span<const double> loads, double scale) {
  Rise r;
  const std::size_t n = std::min({x.size(), fraction.size(), loads.size()});
  if (n < 3) return r;
  x = x.first(n);
  std::vector<double> w(loads.begin(), loads.begin() + static_cast<std::ptrdiff_t>(n));
  for (double& v : w) v = std::max(v, kTinyWeight);
  r.fit = isotonic_fit(fraction.first(n), w);
  const double total = r.fit.back() - r.fit.front();
  if (!(total > 0)) return r;

  // Piecewise-linear fits over every placement of up to kPieces - 1 inner knots, each read by
  // the knot where the slope increases most: the slopes of the pieces on either side (the curve
  // taken as flat before the sweep), or with a scale, the fit's mean slopes over one scale on
  // either side, for the knots with a scale of the sweep on both sides.
  scale = std::min(scale, (x[n - 1] - x[0]) / 3);
  const PieceTable table(PrefixSums(x, r.fit, w), n);
  const Placements& placements = read_placements(table, x, n, scale);
  auto each = [&](auto&& visit) {
    for (const auto& group : placements)
      for (const RiseCandidate& c : group) visit(c);
  };
  // Placements are compared by BIC: the residual variance comes from the fit with the most knots
  // that fits best, and each knot costs its location and its value. A knot that splits a straight
  // ramp only fits the noise and does not pay for itself, so the ramp's start stays the onset.
  double least_sse = std::numeric_limits<double>::infinity();
  each([&](const RiseCandidate& c) { least_sse = std::min(least_sse, c.sse); });
  if (!std::isfinite(least_sse)) return r;
  const double dof = static_cast<double>(n > 2 * kNodes ? n - 2 * kNodes : 1);
  const double variance = std::max(least_sse / dof, 1e-12);
  const double log_n = std::log(static_cast<double>(n));
  auto criterion = [&](const RiseCandidate& c) {
    return c.sse / variance + (2.0 * c.nodes - 2) * log_n;
  };
  const RiseCandidate* best = nullptr;
  double best_criterion = std::numeric_limits<double>::infinity();
  each([&](const RiseCandidate& c) {
    const double value = criterion(c);
    if (best == nullptr || value < best_criterion) {
      best = &c;
      best_criterion = value;
    }
  });
  r.begin = best->begin;
  r.end = best->end;
  const double rise_slope = best->slope;
  // The knots are not known exactly: average the onset over all placements with as many knots as
  // the best, each weighted by its likelihood against the best. (Placements with more knots would
  // bring in splits of the rise whose steeper half the noise decides.) A curve whose rise could
  // start at several sizes about equally well gets the mean and a wide onset_sd, not whichever
  // point the noise favoured.
  double total_weight = 0, mean = 0, mean_end = 0, square = 0;
  each([&](const RiseCandidate& c) {
    const double half_excess = (criterion(c) - best_criterion) / 2;
    // exp() of less than -746 is 0 in double precision: such placements add nothing.
    if (c.nodes != best->nodes || half_excess > 746) return;
    const double lw = std::exp(-half_excess);
    total_weight += lw;
    mean += lw * x[c.begin];
    mean_end += lw * x[c.end];
    square += lw * x[c.begin] * x[c.begin];
  });
  mean /= total_weight;
  mean_end /= total_weight;
  r.found = true;
  r.slope = rise_slope;
  r.onset = mean;
  r.onset_sd = std::sqrt(std::max(square / total_weight - mean * mean, 0.0));
  r.rise_end = std::max(mean_end, mean);
  r.base = r.fit[r.begin];
  r.top = r.fit[r.end];
  const double width = x[n - 1] - x[0];
  r.sharpness = std::clamp((r.top - r.base) / total, 0.0, 1.0) *
                (width > 0 ? 1 - (r.rise_end - r.onset) / width : 1.0);
  r.p_value = z_test_p(r.base, w[r.begin], r.top, w[r.end]);
  r.first_rise = first_lasting_rise(r.fit, w, r.end);  // first lasting misses
  return r;
}

}  // namespace gputopo::analysis
