#pragma once

#include "analysis/interval.hpp"

// The L2 segment count from one SM's near-partition step (docs/discovery.md, l2.segmentCount).
namespace gputopo::analysis {

// The integer fraction api/n (n <= max_count) nearest to the measured step, as MT4G aligns it,
// judged against the fraction the step's interval comes nearest to on the other side of the
// midpoint between them (the rival).
struct SegmentCountFit {
  int count = 1;
  double value = 0;              // api / count
  double relative_distance = 0;  // |measured - value| / value
  double closeness = 0;          // 1 - relative_distance (MT4G's confidence), at least 0
  int rival = 0;                 // the neighbouring count the interval leans to; 0: none
  double rival_value = 0;        // api / rival
  // At the interval's end nearer the rival: (d_rival - d_own) / (d_rival + d_own), d the distance
  // to each fraction. 1 at api/n, 0.5 where that end is 3 times nearer api/n than the rival, 0 at
  // the midpoint and beyond (an interval that reaches a second fraction's side establishes
  // neither).
  double separation = 0;
  double confidence = 0;  // min(closeness, separation)
};

SegmentCountFit fit_segment_count(double measured, Bounds step, double api, int max_count);

}  // namespace gputopo::analysis
