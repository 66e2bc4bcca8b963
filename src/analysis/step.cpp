#include "analysis/step.hpp"

#include <algorithm>

namespace gputopo::analysis {

Step locate_step(const std::vector<double>& x, const std::vector<double>& share, double noise) {
  Step out;
  if (x.size() < 2 || share.size() != x.size()) return out;
  const double rise = *std::max_element(share.begin(), share.end()) - share.front();
  if (rise < std::max(0.05, 2 * noise)) return out;
  std::vector<double> g;
  for (double f : share) g.push_back((f - share.front()) / rise);
  std::size_t steep = 1;
  for (std::size_t i = 2; i < g.size(); ++i)
    if (g[i] - g[i - 1] > g[steep] - g[steep - 1]) steep = i;
  std::size_t lo = steep - 1;
  while (lo > 0 && g[lo] > 0.1) --lo;
  std::size_t hi = steep;
  while (hi + 1 < g.size() && g[hi] < 0.9) ++hi;
  const double slope = (g[steep] - g[steep - 1]) / (x[steep] - x[steep - 1]);
  out.onset = std::clamp(x[steep - 1] - g[steep - 1] / slope, x[lo], x[steep - 1]);
  out.lo = x[lo];
  out.hi = x[hi];
  out.found = true;
  return out;
}

}  // namespace gputopo::analysis
