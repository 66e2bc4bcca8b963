#pragma once

#include <cstdint>
#include <vector>

#include "analysis/inference.hpp"

namespace gputopo::analysis {

// The line size from several stride sweeps' readings (line_size of each, in sweep order), each
// interval (lo, hi] a range the line lies in. The most confident established reading, checked
// against the other established ones:
// - their intervals share one power of two p >= fg: p, at 0.9 where no reading was that sure;
// - they share none: the sweeps contradict each other (a clean-looking step that outliers or set
//   crowding made up), and the most confident reading keeps only the margin of the two highest
//   confidences, (a - b) / (a + b), with the reason;
// - they share several: the most confident reading as it is.
// Without an established reading, the last reading (its reason says why).
Estimate combine_line_sweeps(const std::vector<Estimate>& readings, std::uint32_t fg);

}  // namespace gputopo::analysis
