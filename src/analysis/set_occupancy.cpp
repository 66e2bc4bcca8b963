#include "analysis/set_occupancy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gputopo::analysis {
namespace {

// Points of the coarse grid over log(sets), and golden-section steps after it.
constexpr int kGridPoints = 96;
constexpr int kRefineSteps = 40;
// The profile bound: 95 % of a chi-square of one degree of freedom.
constexpr double kProfileChi2 = 3.84;

// The mean and variance of the share of n lines in sets holding more than `ways` of them: each
// set's count X ~ Binomial(n, 1 / sets) adds X to the misses where X > ways, so the share's
// variance is sets x Var(X [X > ways]) / n^2 (the sets' weak anticorrelation left out).
struct Share {
  double mean = 0;
  double variance = 0;
};

Share share_of(double lines, double sets, int ways) {
  const double n = std::max(1.0, std::floor(lines));
  if (sets <= 1) return {n > ways ? 1.0 : 0.0, 0};
  const double p = 1 / sets;
  double first = n * p;  // E[X [X > ways]], from E[X] less the counts <= ways
  double second = n * p * (1 - p) + first * first;  // E[X^2 [X > ways]] likewise
  // The terms by ratio from P(X = 0); in logs only where that underflows (a few sets).
  const double ratio = p / (1 - p);
  double log_pmf = n * std::log1p(-p);
  double pmf = std::exp(log_pmf);
  const bool in_logs = pmf == 0;
  for (int k = 0; k <= ways && k <= n; ++k) {
    if (k > 0 && in_logs) {
      log_pmf += std::log((n - k + 1) / k * ratio);
      pmf = std::exp(log_pmf);
    } else if (k > 0) {
      pmf *= (n - k + 1) / k * ratio;
    }
    first -= k * pmf;
    second -= static_cast<double>(k) * k * pmf;
  }
  first = std::max(first, 0.0);
  const double variance = std::max(second - first * first, 0.0) * sets / (n * n);
  return {std::clamp(first * sets / n, 0.0, 1.0), variance};
}

// Pearson's chi-square of the draws against the model, each share weighed by its variance (at
// least that of one line in the draw).
double chi2(const std::vector<Draw>& draws, double sets, int ways) {
  double s = 0;
  for (const Draw& d : draws) {
    const Share m = share_of(d.lines, sets, ways);
    const double floor = 1 / (d.lines * d.lines);
    const double e = m.mean - d.miss_share;
    s += e * e / std::max(m.variance, floor);
  }
  return s;
}

WaysFit fit_ways(const std::vector<Draw>& draws, double capacity, int ways) {
  const double lo = std::log(std::max(1.0, capacity / (4.0 * ways)));
  const double hi = std::log(std::max(2.0, 4.0 * capacity / ways));
  double best_x = lo;
  double best = std::numeric_limits<double>::infinity();
  const double step = (hi - lo) / (kGridPoints - 1);
  for (int i = 0; i < kGridPoints; ++i) {
    const double x = lo + i * step;
    if (const double e = chi2(draws, std::exp(x), ways); e < best) {
      best = e;
      best_x = x;
    }
  }
  double a = std::max(lo, best_x - step);
  double b = std::min(hi, best_x + step);
  const double g = (std::sqrt(5.0) - 1) / 2;
  // Golden section: each step keeps one of the two inner points and evaluates one new one.
  double c = b - g * (b - a);
  double d = a + g * (b - a);
  double fc = chi2(draws, std::exp(c), ways);
  double fd = chi2(draws, std::exp(d), ways);
  for (int i = 0; i < kRefineSteps; ++i) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = chi2(draws, std::exp(c), ways);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = chi2(draws, std::exp(d), ways);
    }
  }
  const double x = (a + b) / 2;
  const double e = chi2(draws, std::exp(x), ways);
  return e < best ? WaysFit{ways, std::exp(x), e} : WaysFit{ways, std::exp(best_x), best};
}

// The set counts around the best fit whose chi-square stays within kProfileChi2 (scaled by the
// overdispersion) of the least.
void profile(const std::vector<Draw>& draws, SetOccupancy& fit) {
  const double bound = fit.best.chi2 + kProfileChi2 * fit.dispersion;
  const auto within = [&](double s) { return chi2(draws, s, fit.best.ways) <= bound; };
  fit.sets_lo = fit.sets_hi = fit.best.sets;
  for (double s = fit.best.sets; s >= 1 && within(s); s *= 0.999) fit.sets_lo = s;
  for (double s = fit.best.sets; s <= 4 * fit.best.sets && within(s); s *= 1.001) fit.sets_hi = s;
}

}  // namespace

double overflow_share(double lines, double sets, int ways) {
  return share_of(lines, sets, ways).mean;
}

std::optional<SetOccupancy> fit_set_occupancy(const std::vector<Draw>& draws, double capacity_lines,
                                              int max_ways) {
  if (draws.size() < 3 || capacity_lines < 1 || max_ways < 1) return std::nullopt;
  SetOccupancy fit;
  for (int w = 1; w <= max_ways; ++w) fit.per_ways.push_back(fit_ways(draws, capacity_lines, w));
  const auto by_chi2 = [](const WaysFit& a, const WaysFit& b) { return a.chi2 < b.chi2; };
  fit.best = *std::min_element(fit.per_ways.begin(), fit.per_ways.end(), by_chi2);
  for (const WaysFit& f : fit.per_ways)
    if (f.ways != fit.best.ways && (!fit.runner_up || f.chi2 < fit.runner_up->chi2))
      fit.runner_up = f;
  double sse = 0;
  for (const Draw& d : draws) {
    const double e = overflow_share(d.lines, fit.best.sets, fit.best.ways) - d.miss_share;
    sse += e * e;
  }
  fit.rms = std::sqrt(sse / static_cast<double>(draws.size()));
  const double dof = std::max<double>(1, static_cast<double>(draws.size()) - 2);
  fit.dispersion = std::max(1.0, fit.best.chi2 / dof);
  double weights = 0;
  for (const WaysFit& f : fit.per_ways)
    weights += std::exp(-(f.chi2 - fit.best.chi2) / (2 * fit.dispersion));
  fit.best_probability = 1 / weights;
  profile(draws, fit);
  return fit;
}

}  // namespace gputopo::analysis
