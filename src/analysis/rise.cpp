#include "analysis/rise.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "analysis/distributions.hpp"

namespace gputopo::analysis {
namespace {

constexpr double kTinyWeight = 1e-9;

struct PiecewiseFit {
  std::array<std::size_t, 4> nodes{};  // point indices of the knots, ascending, unique
  std::size_t count = 0;               // nodes used
  std::array<double, 4> values{};      // fit at each node
  double sse = std::numeric_limits<double>::infinity();
};

// Least-squares continuous piecewise-linear fit with knots at the given point indices (hat-function
// basis, normal equations solved by Gaussian elimination with partial pivoting).
PiecewiseFit fit_knots(std::span<const double> x, std::span<const double> y,
                       std::span<const double> w, std::array<std::size_t, 4> nodes,
                       std::size_t count) {
  PiecewiseFit f;
  f.nodes = nodes;
  f.count = count;
  double a[4][5] = {};
  auto basis = [&](std::size_t i, std::array<double, 4>& phi) {
    phi.fill(0);
    for (std::size_t m = 0; m + 1 < count; ++m) {
      const double x0 = x[nodes[m]], x1 = x[nodes[m + 1]];
      if (i >= nodes[m] && i <= nodes[m + 1]) {
        const double t = x1 > x0 ? (x[i] - x0) / (x1 - x0) : 0.0;
        phi[m] = 1 - t;
        phi[m + 1] = t;
        return;
      }
    }
  };
  std::array<double, 4> phi{};
  for (std::size_t i = 0; i < x.size(); ++i) {
    basis(i, phi);
    for (std::size_t r = 0; r < count; ++r) {
      for (std::size_t c = 0; c < count; ++c) a[r][c] += w[i] * phi[r] * phi[c];
      a[r][count] += w[i] * phi[r] * y[i];
    }
  }
  for (std::size_t c = 0; c < count; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < count; ++r)
      if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
    if (std::abs(a[p][c]) < 1e-300) return f;
    for (std::size_t k = 0; k <= count; ++k) std::swap(a[c][k], a[p][k]);
    for (std::size_t r = 0; r < count; ++r) {
      if (r == c) continue;
      const double m = a[r][c] / a[c][c];
      for (std::size_t k = c; k <= count; ++k) a[r][k] -= m * a[c][k];
    }
  }
  for (std::size_t c = 0; c < count; ++c) f.values[c] = a[c][count] / a[c][c];
  f.sse = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    basis(i, phi);
    double v = 0;
    for (std::size_t m = 0; m < count; ++m) v += phi[m] * f.values[m];
    f.sse += w[i] * (y[i] - v) * (y[i] - v);
  }
  return f;
}

double z_test_p(double p1, double n1, double p2, double n2) {
  const double pooled = (p1 * n1 + p2 * n2) / std::max(n1 + n2, 1.0);
  const double se = std::sqrt(std::max(pooled * (1 - pooled), 1e-12) * (1 / n1 + 1 / n2));
  return 1 - normal_cdf((p2 - p1) / se);
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
                   std::span<const double> loads) {
  Rise r;
  const std::size_t n = std::min({x.size(), fraction.size(), loads.size()});
  if (n < 3) return r;
  x = x.first(n);
  std::vector<double> w(loads.begin(), loads.begin() + static_cast<std::ptrdiff_t>(n));
  for (double& v : w) v = std::max(v, kTinyWeight);
  r.fit = isotonic_fit(fraction.first(n), w);
  const double total = r.fit.back() - r.fit.front();
  if (!(total > 0)) return r;

  // Three-piece fits over every pair of inner knots (the end points are knots too), each with its
  // steepest piece.
  struct Candidate {
    double sse = 0;
    std::size_t begin = 0, end = 0;
    double slope = 0;
  };
  std::vector<Candidate> candidates;
  std::size_t best = 0;
  for (std::size_t k1 = 0; k1 + 1 < n; ++k1) {
    for (std::size_t k2 = k1 + 1; k2 < n; ++k2) {
      std::array<std::size_t, 4> nodes{};
      std::size_t count = 0;
      for (std::size_t v : {std::size_t{0}, k1, k2, n - 1})
        if (count == 0 || nodes[count - 1] != v) nodes[count++] = v;
      const auto f = fit_knots(x, r.fit, w, nodes, count);
      if (!std::isfinite(f.sse)) continue;
      // The piece [k1, k2] is the rise: it must be at least as steep as the pieces around it
      // (a knot inside a straight ramp then never moves the onset off the ramp's start).
      auto slope = [&](std::size_t from, std::size_t to) {
        const double dx = x[to] - x[from];
        const auto value = [&](std::size_t i) {
          for (std::size_t m = 0; m < f.count; ++m)
            if (f.nodes[m] == i) return f.values[m];
          return 0.0;
        };
        return dx > 0 ? (value(to) - value(from)) / dx : 0.0;
      };
      const double rise = slope(k1, k2);
      const double slack = 1e-9 * std::abs(rise);
      if (!(rise > 0) || (k1 > 0 && slope(0, k1) > rise + slack) ||
          (k2 + 1 < n && slope(k2, n - 1) > rise + slack))
        continue;
      const Candidate c{f.sse, k1, k2, rise};
      candidates.push_back(c);
      if (c.sse < candidates[best].sse * (1 - 1e-12)) best = candidates.size() - 1;
    }
  }
  if (candidates.empty()) return r;
  r.begin = candidates[best].begin;
  r.end = candidates[best].end;
  const double steepest = candidates[best].slope;
  // The knots are not known exactly: average the onset over all fits, each weighted by its
  // likelihood against the best (Gaussian, variance from the best fit's residuals). A curve whose
  // rise could start at several sizes about equally well gets the mean and a wide onset_sd, not
  // whichever point the noise favoured.
  const double variance =
      std::max(candidates[best].sse / static_cast<double>(n > 4 ? n - 4 : 1), 1e-12);
  double total_weight = 0, mean = 0, mean_end = 0, square = 0;
  for (const Candidate& c : candidates) {
    const double lw = std::exp(-(c.sse - candidates[best].sse) / (2 * variance));
    total_weight += lw;
    mean += lw * x[c.begin];
    mean_end += lw * x[c.end];
    square += lw * x[c.begin] * x[c.begin];
  }
  mean /= total_weight;
  mean_end /= total_weight;
  r.found = true;
  r.slope = steepest;
  r.onset = mean;
  r.onset_sd = std::sqrt(std::max(square / total_weight - mean * mean, 0.0));
  r.rise_end = std::max(mean_end, mean);
  r.base = r.fit[r.begin];
  r.top = r.fit[r.end];
  const double width = x[n - 1] - x[0];
  r.sharpness = std::clamp((r.top - r.base) / total, 0.0, 1.0) *
                (width > 0 ? 1 - (r.rise_end - r.onset) / width : 1.0);
  r.p_value = z_test_p(r.base, w[r.begin], r.top, w[r.end]);
  // First lasting misses: the first point whose fit is significantly above the first point's
  // (one-sided z-test at 0.01, the library's usual level).
  r.first_rise = r.end;
  for (std::size_t i = 1; i < r.end; ++i) {
    if (r.fit[i] > r.fit[0] && z_test_p(r.fit[0], w[0], r.fit[i], w[i]) < 0.01) {
      r.first_rise = i;
      break;
    }
  }
  return r;
}

}  // namespace gputopo::analysis
