#include "device/cuda/plan/launch_check.hpp"

#include <set>

namespace gputopo::device::cuda {

LaunchVerdict judge_launch(const std::vector<JobOutcome>& jobs) {
  LaunchVerdict v;
  std::set<int> used;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    if (j.timed_out) {
      v.timed_out.push_back(i);
      continue;
    }
    const bool placed_right = j.wanted_sm < 0 || j.smid == j.wanted_sm;
    if (j.ran && placed_right && used.insert(j.smid).second)
      v.accepted.push_back(i);
    else
      v.rerun.push_back(i);
  }
  return v;
}

}  // namespace gputopo::device::cuda
