#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace gputopo::analysis {

// Miss fraction of a chase over arrays of several sizes at the fetch granularity (every line
// touched): how this cache's misses grow with the footprint, fuzzy transition included.
struct FootprintCurve {
  std::vector<double> bytes;  // ascending
  std::vector<double> miss;
  double at(double footprint) const;  // linear interpolation, clamped at both ends
};

// Miss fraction of one array chased at several strides.
struct StrideCurve {
  double array_bytes = 0;
  std::vector<double> strides;
  std::vector<double> miss;
};

struct LineFit {
  double line = 0;
  double confidence = 0;           // 1 - (best squared error / second best)
  std::vector<double> candidates;  // powers of two tried
  std::vector<double> errors;      // their squared errors
};

// The line size L whose prediction explains the stride curves best: a stride below L touches every
// line (footprint = the array), a stride of L or more one line per element (footprint =
// array / stride * L); the miss fraction at a footprint is read off the footprint curve. This
// holds for caches whose misses set in gradually (hashed sets, non-LRU replacement), where the
// stride curves show no clean step. Candidates are the powers of two from fg to 4 KiB.
std::optional<LineFit> fit_line_size(const FootprintCurve& footprint,
                                     const std::vector<StrideCurve>& sweeps, std::uint32_t fg);

}  // namespace gputopo::analysis
