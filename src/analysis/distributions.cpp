#include "analysis/distributions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gputopo::analysis {
namespace {

constexpr double kEps = 1e-15;

// P(a, x) by its power series; converges fast for x < a + 1.
double gamma_p_series(double a, double x) {
  double term = 1 / a;
  double sum = term;
  for (int n = 1; n < 10000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::abs(term) < std::abs(sum) * kEps) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Q(a, x) by its continued fraction (modified Lentz); converges fast for x >= a + 1.
double gamma_q_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1 - a;
  double c = 1 / tiny;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1) < kEps) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

}  // namespace

double gamma_q(double a, double x) {
  if (x <= 0) return 1;
  if (x < a + 1) return std::clamp(1 - gamma_p_series(a, x), 0.0, 1.0);
  return std::clamp(gamma_q_fraction(a, x), 0.0, 1.0);
}

double chi2_sf(double x, double k) { return gamma_q(k / 2, x / 2); }

double chi2_isf(double p, double k) {
  if (p >= 1) return 0;
  if (p <= 0) return std::numeric_limits<double>::infinity();
  double lo = 0;
  double hi = std::max(1.0, k);
  while (chi2_sf(hi, k) > p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (chi2_sf(mid, k) > p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace gputopo::analysis
