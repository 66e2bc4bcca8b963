#include "analysis/segment_count.hpp"

#include <algorithm>
#include <cmath>

namespace gputopo::analysis {
namespace {

struct Side {
  int rival = 0;
  double separation = 1;
};

// The separation of one end x of the interval from the rival on its side of api/n.
Side side(double x, int n, double api, int max_count) {
  const double own = api / n;
  const int rival = x < own ? n + 1 : n - 1;
  if (rival < 1 || rival > max_count) return {};
  const double d_own = std::abs(x - own);
  const double d_rival = std::abs(x - api / rival);
  const double contrast = d_own + d_rival > 0 ? (d_rival - d_own) / (d_rival + d_own) : 0.0;
  return {rival, std::clamp(contrast, 0.0, 1.0)};
}

}  // namespace

SegmentCountFit fit_segment_count(double measured, Bounds step, double api, int max_count) {
  SegmentCountFit f;
  if (api <= 0 || max_count < 1) return f;
  f.value = api;
  for (int n = 2; n <= max_count; ++n)
    if (std::abs(measured - api / n) < std::abs(measured - f.value)) {
      f.count = n;
      f.value = api / n;
    }
  f.relative_distance = std::abs(measured - f.value) / f.value;
  f.closeness = std::max(0.0, 1 - f.relative_distance);
  const Side lo = side(std::min(step.lo, measured), f.count, api, max_count);
  const Side hi = side(std::max(step.hi, measured), f.count, api, max_count);
  const Side& worse = lo.separation <= hi.separation ? lo : hi;
  f.separation = worse.separation;
  f.rival = worse.rival;
  // Where neither end has a rival (one fraction only), the nearer neighbour is still named.
  if (f.rival == 0 && f.count < max_count) f.rival = f.count + 1;
  f.rival_value = f.rival > 0 ? api / f.rival : 0.0;
  f.confidence = std::min(f.closeness, f.separation);
  return f;
}

}  // namespace gputopo::analysis
