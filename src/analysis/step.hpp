#pragma once

#include <vector>

namespace gputopo::analysis {

// Where a share (of loads above a near level) rises over sizes `x` (ascending). On a real cache
// the transition is gradual (a few far hits trickle in before the bulk), so the first rise is not
// the step. The step is the onset of the bulk: the steepest rise between neighbouring sizes,
// extended back to the first size's share (on an LRU-like ramp, the ramp's start). The transition
// runs from the last size below a tenth of the whole rise to the first size at nine tenths of it.
// Not found where the share rises by less than max(0.05, 2 x `noise`), or where `x` and `share`
// differ in length or hold fewer than two points.
struct Step {
  bool found = false;
  double onset = 0;
  double lo = 0;
  double hi = 0;
};
Step locate_step(const std::vector<double>& x, const std::vector<double>& share, double noise);

}  // namespace gputopo::analysis
