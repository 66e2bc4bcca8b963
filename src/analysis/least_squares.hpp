#pragma once

#include <span>

namespace gputopo::analysis {

struct StraightLine {
  double intercept = 0;
  double slope = 0;
};

// The ordinary least-squares line y = intercept + slope x. Fewer than two distinct x: slope 0 and
// the mean of y (0 for no points).
StraightLine least_squares_line(std::span<const double> x, std::span<const double> y);

}  // namespace gputopo::analysis
