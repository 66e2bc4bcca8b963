#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace gputopo::analysis {

// Weighted isotonic (non-decreasing) least-squares fit by pool-adjacent-violators. Weights <= 0
// count as tiny positive weights. Empty input gives an empty fit.
std::vector<double> isotonic_fit(std::span<const double> y, std::span<const double> weights);

// The steepest rise of a miss-fraction curve (docs/methods.md, "Steepest rise"). The fractions
// are fitted by isotonic regression, and the monotone fit by continuous piecewise-linear functions
// of up to four pieces (knots at sample points, weighted least squares, compared by BIC). The rise
// starts at the knot where the fit's slope increases most; that is the capacity: for a clean step
// (LRU, FIFO) the last size that fits, for a ramp of sets overflowing one by one (set-associative
// LRU) where the ramp starts, for random replacement the start of its concave rise, and on Hopper
// the start of the steep rise after a few % of early misses, whatever the slower rest looks like.
// Nothing is compared with a threshold: the knots are where the fit is best, and the onset is
// averaged over how well every other placement fits.
struct Rise {
  bool found = false;  // false: fewer than 3 points, or no rise at all
  // The best fit's rise: the piece after its sharpest knot, where it starts and ends (indices;
  // with a scale, the knot and the first point one scale past it).
  std::size_t begin = 0;
  std::size_t end = 0;
  // First point whose fit is significantly above the fit at point 0 (first lasting misses).
  std::size_t first_rise = 0;
  // The capacity: where the rise starts, averaged over the knot placements with as many knots as
  // the best, weighted by their likelihood, with that average's spread. Not a sample point in
  // general: round it to the sweep's resolution.
  double onset = 0;
  double onset_sd = 0;
  double rise_end = 0;  // where the rise piece ends, averaged the same way
  double slope = 0;     // of the best fit's rise piece, fraction per x unit
  double base = 0;      // isotonic fit at `begin` and at `end`
  double top = 0;
  // Share of the curve's whole rise (fit at the last point minus at the first) that the rise piece
  // holds, times the share of the sweep's width it does not take: 1 for a clean step swept
  // finely, lower for a rise spread over the sweep.
  double sharpness = 0;
  // One-sided binomial z-test that the fit at `end` exceeds the fit at `begin`.
  double p_value = 1;
  std::vector<double> fit;  // isotonic fit per point
};

// x ascending; fraction in [0, 1]; loads = the sample count behind each fraction (weights).
// scale > 0: a knot's increase of slope compares the fit's mean slope over `scale` after the knot
// with that over `scale` before it, for knots with `scale` of the sweep on either side (a scale
// above a third of the sweep's width counts as a third), so that a rise shorter than `scale` does
// not outweigh one that lasts; the rise is then the stretch from the knot to one `scale` past it.
Rise steepest_rise(std::span<const double> x, std::span<const double> fraction,
                   std::span<const double> loads, double scale = 0);

}  // namespace gputopo::analysis
