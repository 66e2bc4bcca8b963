#include "analysis/line_fit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace gputopo::analysis {
namespace {

// A cache whose misses set in gradually between 0.8 and 1.1 of its capacity, as on Hopper.
double gradual(double footprint, double capacity) {
  return std::clamp((footprint / capacity - 0.8) / 0.3, 0.0, 1.0);
}

FootprintCurve curve(double capacity, double largest) {
  FootprintCurve c;
  for (int i = 0; i < 64; ++i) {
    const double b = capacity * 0.25 + (largest - capacity * 0.25) * i / 63.0;
    c.bytes.push_back(b);
    c.miss.push_back(gradual(b, capacity));
  }
  return c;
}

StrideCurve strides(double capacity, double oversize, double line) {
  StrideCurve s;
  s.array_bytes = capacity * oversize;
  for (double stride = 24; stride <= 2048; stride += 16) {
    const double fp = stride < line ? s.array_bytes : s.array_bytes / stride * line;
    s.strides.push_back(stride);
    s.miss.push_back(gradual(fp, capacity));
  }
  return s;
}

TEST(LineFit, FindsTheLineOfAGradualCache) {
  const double capacity = 240 * 1024;
  for (double line : {32.0, 64.0, 128.0, 256.0}) {
    const auto fit =
        fit_line_size(curve(capacity, 2.5 * capacity),
                      {strides(capacity, 1.5, line), strides(capacity, 2.5, line)}, 32);
    ASSERT_TRUE(fit.has_value());
    EXPECT_EQ(fit->line, line);
    EXPECT_GT(fit->confidence, 0.9);
  }
}

TEST(LineFit, FlatCurvesGiveNoConfidence) {
  FootprintCurve flat{{1000, 2000}, {0.5, 0.5}};
  StrideCurve s{3000, {32, 64, 128}, {0.5, 0.5, 0.5}};
  const auto fit = fit_line_size(flat, {s}, 32);
  ASSERT_TRUE(fit.has_value());
  EXPECT_LT(fit->confidence, 0.01);
}

TEST(LineFit, NeedsAFootprintCurve) {
  EXPECT_FALSE(fit_line_size({}, {StrideCurve{}}, 32).has_value());
}

}  // namespace
}  // namespace gputopo::analysis
