#include "analysis/least_squares.hpp"

#include <algorithm>

namespace gputopo::analysis {

StraightLine least_squares_line(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = std::min(x.size(), y.size());
  if (n == 0) return {};
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  if (sxx == 0) return {my, 0};
  const double slope = sxy / sxx;
  return {my - slope * mx, slope};
}

}  // namespace gputopo::analysis
