#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/sweep.hpp"

namespace gputopo::analysis {

struct SegmentOptions {
  Reduction reduction = Reduction::LevelFractions;
  // Family-wise probability of reporting a change in a sweep that has none. The segmentation
  // penalty is the chi-square quantile that this rate implies (Bonferroni over candidate
  // locations) in units of the noise variance estimated from the sweep itself; no threshold is
  // expressed in latency units.
  double alpha = 0.01;
  std::size_t max_changes = 32;
  // With fraction reductions, read a segment whose mix of levels is a blend of the plateaus around
  // it as part of the transition between them (off: every segment is a plateau).
  bool fold_blends = true;
};

// A change of level between two plateaus of a sweep.
struct ChangePoint {
  std::size_t index = 0;  // first point after the change (the first point that left the plateau)
  double x = 0;           // points[index].x
  // The transition: [index_lo] is the last point of the plateau before, [index_hi] the first point
  // of the plateau after. Points in between are neither, e.g. Hopper's L1 miss fraction rising,
  // falling back to zero and rising again; such excursions are folded into one transition.
  // For a clean step index_lo = index - 1 and index_hi = index.
  std::size_t index_lo = 0;
  std::size_t index_hi = 0;
  double x_lo = 0;
  double x_hi = 0;
  // Significance: P(a change this large in this window | no change), corrected for having picked
  // the best of all candidate locations (likelihood ratio, Bonferroni).
  double p_value = 1;
  // Posterior probability (flat prior over locations, Gaussian profile likelihood) that the
  // change is exactly at `index`: 1 for a sharp step, small for a gradual or noisy one.
  double location_certainty = 0;
  // (1 - p_value) * posterior probability that the change lies in [index_lo, index_hi].
  double confidence = 0;
  // Plateau latency on either side: median of the per-point medians of the plateau.
  double level_before = 0;
  double level_after = 0;
  // The same plateaus in ReducedSweep::score units.
  double score_before = 0;
  double score_after = 0;
};

// A run of points at one level.
struct Plateau {
  std::size_t begin = 0;  // first point
  std::size_t end = 0;    // one past the last point
  double x_first = 0;
  double x_last = 0;
  double level = 0;  // median of the per-point medians (latency units)
  double score = 0;  // mean ReducedSweep::score over the plateau
};

struct Segmentation {
  std::vector<ChangePoint> changes;  // ascending; empty when the sweep has no change
  std::vector<Plateau> plateaus;     // changes.size() + 1 (empty only for an empty sweep)
  // Point ranges [first, last] that left a plateau and came back to it without a lasting change
  // (isolated anomalies); they are not changes.
  std::vector<std::pair<std::size_t, std::size_t>> excursions;
  double noise = 0;    // point-to-point noise of the reduced features (robust, from the data)
  double penalty = 0;  // cost of one extra change, in the same units as the segmentation cost
};

// All changes of a sweep (docs/methods.md): exact optimal partitioning (PELT-pruned) of the
// reduced features under a Gaussian mean-shift cost, in units of the noise estimated from the
// sweep, with the penalty set by `alpha`. Then the segments are read as plateaus and transitions:
// a segment that comes back to the level of an earlier one makes what lies between an excursion
// (when shorter than the plateau it left);
// with level fractions, a segment whose mix of levels is a blend of the plateaus around it belongs
// to the transition between them; an excursion next to a change, going its way, is folded into it.
Segmentation segment(const std::vector<SweepPoint>& points, const SegmentOptions& options = {});
Segmentation segment(const ReducedSweep& reduced, const SegmentOptions& options = {});

// The single most significant change of segment(), or nullopt when the sweep has no change.
std::optional<ChangePoint> most_likely_change(const std::vector<SweepPoint>& points,
                                              const SegmentOptions& options = {});
std::optional<ChangePoint> most_likely_change(const ReducedSweep& reduced,
                                              const SegmentOptions& options = {});

// Where loads start to reach each level, and where their share steps up. For every feature level
// of a LevelFractions reduction, that level's fraction alone is segmented (blends not folded):
// each rise is a change. A size probe asks this for "the first size with DRAM loads" or "where
// DRAM loads jump" while the far-L2 fraction still ramps, which the joint segmentation may read as
// one transition or as several steps.
struct LevelOnset {
  std::size_t level = 0;  // index into ReducedSweep::levels.levels
  double latency = 0;     // that level's center
  // The rises of the level's fraction, ascending in x; score_before/score_after hold the fraction
  // (about) on either side. Empty when the fraction never rises significantly.
  std::vector<ChangePoint> rises;
};

std::vector<LevelOnset> level_onsets(const ReducedSweep& reduced,
                                     const SegmentOptions& options = {});

}  // namespace gputopo::analysis
