#include "fleet/uncertainty.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace gputopo::fleet {
namespace {

double median_of_sorted(std::span<const double> x) {
  const std::size_t n = x.size();
  return n % 2 == 1 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

// Croux and Rousseeuw's factors for n = 2 to 9; n / (n - 0.8) above.
double small_sample_factor(std::size_t n) {
  constexpr std::array<double, 8> kFactor{1.196, 1.495, 1.363, 1.206, 1.200, 1.140, 1.129, 1.107};
  return n < 10 ? kFactor[n - 2] : double(n) / (double(n) - 0.8);
}

}  // namespace

bool established(const Value* v) {
  return v != nullptr && !v->value.is_null() && (!v->confidence || *v->confidence >= 0.5);
}

double own_sd(const Value& v, double toward) {
  double interval = 0;
  if (v.interval && v.value.is_number()) {
    const double x = v.value.get<double>();
    const double half = toward < x ? x - v.interval->first : v.interval->second - x;
    interval = std::max(half, 0.0) / 1.96;
  }
  return std::hypot(interval, v.spread ? v.spread->sigma : 0.0);
}

double fleet_sd(std::span<double> x) {
  if (x.size() < 2) return 0;
  std::sort(x.begin(), x.end());
  const double m = median_of_sorted(x);
  std::vector<double> deviation(x.size());
  std::transform(x.begin(), x.end(), deviation.begin(), [m](double v) { return std::abs(v - m); });
  std::sort(deviation.begin(), deviation.end());
  return 1.482602218505602 * median_of_sorted(deviation) * small_sample_factor(x.size());
}

double median_sd(std::span<double> sds) {
  if (sds.empty()) return 0;
  std::sort(sds.begin(), sds.end());
  return 1.2533 * median_of_sorted(sds) / std::sqrt(double(sds.size()));
}

}  // namespace gputopo::fleet
