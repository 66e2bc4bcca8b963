#include "analysis/ks.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numbers>
#include <numeric>
#include <vector>

namespace gputopo::analysis {
namespace {

constexpr long kMaxExactN = 10000;  // scipy's method='auto' limit for the exact distribution

// NaNs dropped: they order with nothing, so neither sorting nor the merge below could use them.
std::vector<double> sorted_copy(std::span<const double> s) {
  std::vector<double> v;
  v.reserve(s.size());
  std::copy_if(s.begin(), s.end(), std::back_inserter(v), [](double x) { return !std::isnan(x); });
  std::sort(v.begin(), v.end());
  return v;
}

// max over x of |i(x) * w1 - j(x) * w2| where i, j count the values <= x in a and b. With
// w1 = n2 / g and w2 = n1 / g this is D * lcm(n1, n2) as an exact integer.
long long scaled_statistic(const std::vector<double>& a, const std::vector<double>& b, long long w1,
                           long long w2) {
  std::size_t i = 0;
  std::size_t j = 0;
  long long best = 0;
  while (i < a.size() || j < b.size()) {
    double v;
    if (j == b.size() || (i < a.size() && a[i] <= b[j])) {
      v = a[i];
    } else {
      v = b[j];
    }
    while (i < a.size() && a[i] <= v) ++i;
    while (j < b.size() && b[j] <= v) ++j;
    best =
        std::max(best, std::llabs(static_cast<long long>(i) * w1 - static_cast<long long>(j) * w2));
  }
  return best;
}

// P(D_{n,n} >= h/n) by the reflection formula 2 * sum_k (-1)^(k-1) C(2n, n-kh) / C(2n, n),
// evaluated from the innermost term outwards so that the alternating sum does not cancel.
double prob_outside_square(long n, long h) {
  double p = 0;
  for (long k = n / h; k >= 1; --k) {
    double ratio = 1;  // C(2n, n-kh) / C(2n, n-(k-1)h)
    for (long j = (k - 1) * h; j < k * h; ++j) {
      ratio *= static_cast<double>(n - j) / static_cast<double>(n + j + 1);
    }
    p = ratio * (1 - p);
  }
  return 2 * p;
}

// P(D >= h / lcm) for unequal sizes: the probability that a uniformly random lattice path from
// (0,0) to (m,n) touches |ng*x - mg*y| >= h. Column by column, q[y] holds that probability for the
// paths ending in (x, y); the last step came from the left with probability x / (x + y). Every
// value stays in [0, 1], so nothing overflows.
double prob_outside_band(long m, long n, long g, long h) {
  if (m < n) std::swap(m, n);
  const long mg = m / g;
  const long ng = n / g;
  std::vector<double> q(static_cast<std::size_t>(n) + 1, 1.0);
  for (long y = 0; y <= n && mg * y < h; ++y) q[static_cast<std::size_t>(y)] = 0.0;
  for (long x = 1; x <= m; ++x) {
    // inside: ng*x - h < mg*y < ng*x + h
    const long lo_num = ng * x - h;
    long y_lo = lo_num < 0 ? 0 : lo_num / mg + 1;
    long y_hi = (ng * x + h - 1) / mg;
    y_hi = std::min(y_hi, n);
    if (y_lo > y_hi) return 1.0;
    double below = 1.0;  // the cell under the band is outside
    for (long y = y_lo; y <= y_hi; ++y) {
      const auto yy = static_cast<std::size_t>(y);
      const double dx = static_cast<double>(x);
      const double dy = static_cast<double>(y);
      const double left = q[yy];
      const double v = (dx * left + dy * below) / (dx + dy);
      q[yy] = v;
      below = v;
    }
    if (y_hi < n) q[static_cast<std::size_t>(y_hi) + 1] = 1.0;
  }
  return q[static_cast<std::size_t>(n)];
}

// P(D+_n >= x), Birnbaum-Tingey: x * sum_j C(n,j) (1 - x - j/n)^(n-j) (x + j/n)^(j-1), positive
// terms summed in log space.
double smirnov_sf(long n, double x) {
  const double dn = static_cast<double>(n);
  const auto jmax = static_cast<long>(std::floor(dn * (1 - x) + 1e-12));
  const double lfn = std::lgamma(dn + 1);
  double sum = 0;
  for (long j = 0; j <= jmax; ++j) {
    const double dj = static_cast<double>(j);
    const double a = 1 - x - dj / dn;
    if (a <= 0) break;
    const double lt = lfn - std::lgamma(dj + 1) - std::lgamma(dn - dj + 1) +
                      (dn - dj) * std::log(a) + (dj - 1) * std::log(x + dj / dn);
    sum += std::exp(lt);
  }
  return std::clamp(x * sum, 0.0, 1.0);
}

// P(D_n <= d) by Durbin's matrix (Marsaglia, Tsang and Wang 2003): (n!/n^n) (H^n)[k-1][k-1].
double kolmogorov_cdf_durbin(long n, double d) {
  const double nd = static_cast<double>(n) * d;
  const auto k = static_cast<std::size_t>(std::ceil(nd));
  const double h = static_cast<double>(k) - nd;
  const std::size_t m = 2 * k - 1;
  std::vector<double> fact_inv(m + 1);
  fact_inv[0] = 1;
  for (std::size_t i = 1; i <= m; ++i) fact_inv[i] = fact_inv[i - 1] / static_cast<double>(i);
  std::vector<double> H(m * m, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j <= std::min(i + 1, m - 1); ++j) H[i * m + j] = fact_inv[i + 1 - j];
  }
  for (std::size_t i = 0; i < m; ++i) {
    H[i * m] -= std::pow(h, static_cast<double>(i + 1)) * fact_inv[i + 1];
    H[(m - 1) * m + i] -= std::pow(h, static_cast<double>(m - i)) * fact_inv[m - i];
  }
  if (2 * h - 1 > 0) H[(m - 1) * m] += std::pow(2 * h - 1, static_cast<double>(m)) * fact_inv[m];

  auto multiply = [m](const std::vector<double>& A, const std::vector<double>& B) {
    std::vector<double> C(m * m, 0.0);
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t l = 0; l < m; ++l) {
        const double a = A[i * m + l];
        if (a == 0) continue;
        for (std::size_t j = 0; j < m; ++j) C[i * m + j] += a * B[l * m + j];
      }
    }
    return C;
  };
  auto rescale = [](std::vector<double>& A, long& exponent) {
    double biggest = 0;
    for (double v : A) biggest = std::max(biggest, std::abs(v));
    if (biggest == 0) return;
    int e = 0;
    std::frexp(biggest, &e);
    for (double& v : A) v = std::ldexp(v, -e);
    exponent += e;
  };
  std::vector<double> result(m * m, 0.0);
  for (std::size_t i = 0; i < m; ++i) result[i * m + i] = 1;
  long result_exp = 0;
  long power_exp = 0;
  std::vector<double> power = H;
  for (long e = n; e > 0; e >>= 1) {
    if (e & 1) {
      result = multiply(result, power);
      result_exp += power_exp;
      rescale(result, result_exp);
    }
    if (e > 1) {
      power = multiply(power, power);
      power_exp *= 2;
      rescale(power, power_exp);
    }
  }
  const double v = result[(k - 1) * m + (k - 1)];
  if (v <= 0) return 0;
  const double dn = static_cast<double>(n);
  const double log_p = std::log(v) + static_cast<double>(result_exp) * std::numbers::ln2 +
                       std::lgamma(dn + 1) - dn * std::log(dn);
  return std::clamp(std::exp(log_p), 0.0, 1.0);
}

// P(D_n <= x) by the Pelz-Good (1976) expansion K0 + K1/sqrt(n) + K2/n + K3/n^1.5 in z = x sqrt(n),
// written in its small-z (Jacobi theta) form.
double kolmogorov_cdf_pelz_good(long n, double x) {
  using std::numbers::pi;
  const double z = std::sqrt(static_cast<double>(n)) * x;
  const double z2 = z * z;
  const double z4 = z2 * z2;
  const double z6 = z4 * z2;
  const double pi2 = pi * pi;
  const double pi4 = pi2 * pi2;
  const double pi6 = pi4 * pi2;
  const double log_q = -pi2 / (8 * z2);
  if (log_q < -745) return 0;
  const auto terms = static_cast<long>(std::ceil(16 * z / pi));
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (long k = 1; k <= terms; ++k) {
    const double o = static_cast<double>(2 * k - 1);
    const double o2 = o * o;
    const double w = std::exp(log_q * o2);
    s0 += w;
    s1 += (pi2 * o2 / 4 - z2) * w;
    s2 += (6 * z6 + 2 * z4 + pi2 * (2 * z4 - 5 * z2) * o2 / 4 + pi4 * (1 - 2 * z2) * o2 * o2 / 16) *
          w;
    s3 += (-30 * z6 - 90 * z6 * z2 + pi2 * (135 * z4 - 96 * z6) * o2 / 4 +
           pi4 * (212 * z4 - 60 * z2) * o2 * o2 / 16 + pi6 * (5 - 30 * z2) * o2 * o2 * o2 / 64) *
          w;
  }
  double t2 = 0, t3 = 0;
  for (long k = 1; k <= terms; ++k) {
    const double kk = static_cast<double>(k) * static_cast<double>(k);
    const double w = std::exp(-pi2 * kk / (2 * z2));
    t2 += kk * w;
    t3 += (3 * z2 - pi2 * kk) * kk * w;
  }
  const double r2pi = std::sqrt(2 * pi);
  const double k0 = r2pi / z * s0;
  const double k1 = r2pi / (6 * z4) * s1;
  const double k2 = r2pi / (72 * z6 * z) * s2 - pi2 * r2pi / (36 * z2 * z) * t2;
  const double k3 = r2pi / (6480 * z6 * z4) * s3 + pi2 * r2pi / (216 * z6) * t3;
  const double dn = static_cast<double>(n);
  return k0 + k1 / std::sqrt(dn) + k2 / dn + k3 / (dn * std::sqrt(dn));
}

}  // namespace

double kolmogorov_n_sf(double x, long n) {
  if (n <= 0) return 1;
  const double dn = static_cast<double>(n);
  if (x >= 1) return 0;
  if (x <= 0) return 1;
  const double t = dn * x;
  if (t <= 0.5) return 1;
  if (t <= 1) {  // Ruben-Gambino: P(D_n <= x) = n!/n^n (2t - 1)^n
    const double log_cdf = std::lgamma(dn + 1) - dn * std::log(dn) + dn * std::log(2 * t - 1);
    return std::clamp(1 - std::exp(log_cdf), 0.0, 1.0);
  }
  if (t >= dn - 1) return std::clamp(2 * std::pow(1 - x, dn), 0.0, 1.0);
  const double nx2 = t * x;
  // Where the two one-sided tails do not overlap noticeably (overlap < 1e-7), the two-sided tail
  // is twice the exact one-sided one.
  if (x >= 0.5 || nx2 >= 2.2) return nx2 >= 370 ? 0.0 : std::clamp(2 * smirnov_sf(n, x), 0.0, 1.0);
  double cdf;
  if (n <= 140 || (n <= 100000 && dn * std::pow(x, 1.5) <= 1.4)) {
    cdf = kolmogorov_cdf_durbin(n, x);
  } else {
    cdf = kolmogorov_cdf_pelz_good(n, x);
  }
  return std::clamp(1 - cdf, 0.0, 1.0);
}

double ks_statistic(std::span<const double> a_in, std::span<const double> b_in) {
  const std::vector<double> a = sorted_copy(a_in);
  const std::vector<double> b = sorted_copy(b_in);
  if (a.empty() || b.empty()) return 0;
  const auto n1 = static_cast<long long>(a.size());
  const auto n2 = static_cast<long long>(b.size());
  const long long g = std::gcd(n1, n2);
  const long long h = scaled_statistic(a, b, n2 / g, n1 / g);
  return static_cast<double>(h) / (static_cast<double>(n1 / g) * static_cast<double>(n2));
}

KsResult ks_2samp(std::span<const double> a_in, std::span<const double> b_in) {
  KsResult r;
  const std::vector<double> a = sorted_copy(a_in);
  const std::vector<double> b = sorted_copy(b_in);
  if (a.empty() || b.empty()) return r;
  const auto n1 = static_cast<long>(a.size());
  const auto n2 = static_cast<long>(b.size());
  const long g = std::gcd(n1, n2);
  const long long h = scaled_statistic(a, b, n2 / g, n1 / g);
  const double lcm = static_cast<double>(n1 / g) * static_cast<double>(n2);
  r.d = static_cast<double>(h) / lcm;
  if (h == 0) {
    r.p_value = 1;
    r.exact = true;
    return r;
  }
  if (std::max(n1, n2) <= kMaxExactN) {
    const double p = n1 == n2 ? prob_outside_square(n1, static_cast<long>(h))
                              : prob_outside_band(n1, n2, g, static_cast<long>(h));
    if (p >= 0 && p <= 1) {
      r.p_value = p;
      r.exact = true;
      return r;
    }
  }
  const double m = static_cast<double>(std::max(n1, n2));
  const double n = static_cast<double>(std::min(n1, n2));
  const auto en = static_cast<long>(std::nearbyint(m * n / (m + n)));
  r.p_value = kolmogorov_n_sf(r.d, en);
  r.exact = false;
  return r;
}

}  // namespace gputopo::analysis
