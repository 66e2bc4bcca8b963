#include "analysis/least_squares.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace gputopo::analysis {
namespace {

TEST(LeastSquares, ExactLineAndNoisyOne) {
  const std::vector<double> x{1, 3, 7, 15, 31};
  std::vector<double> y;
  for (const double v : x) y.push_back(62.5 + 105.5 * v);
  const auto exact = least_squares_line(x, y);
  EXPECT_NEAR(exact.intercept, 62.5, 1e-9);
  EXPECT_NEAR(exact.slope, 105.5, 1e-9);
  const auto noisy =
      least_squares_line(std::vector<double>{0, 1, 2, 3}, std::vector<double>{1, 2.9, 5.1, 7});
  EXPECT_NEAR(noisy.slope, 2.02, 1e-9);
  EXPECT_NEAR(noisy.intercept, 0.97, 1e-9);
}

TEST(LeastSquares, DegenerateInputs) {
  EXPECT_EQ(least_squares_line({}, {}).slope, 0);
  const auto flat = least_squares_line(std::vector<double>{2, 2}, std::vector<double>{1, 3});
  EXPECT_EQ(flat.slope, 0);
  EXPECT_EQ(flat.intercept, 2);
}

}  // namespace
}  // namespace gputopo::analysis
