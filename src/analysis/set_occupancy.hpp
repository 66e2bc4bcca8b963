#pragma once

#include <optional>
#include <vector>

// Ways and sets from the misses of random lines (docs/methods.md, "Random draws"). n lines drawn
// at random from a region many times a cache's capacity, chased as one cycle through a
// set-associative cache with LRU or FIFO replacement, miss on every pass exactly where their set
// holds more lines than it has ways: in the last pass a share P(Binomial(n - 1, 1/S) >= W) of
// them, whatever hash spreads lines over the S sets, as long as it spreads the region evenly.
namespace gputopo::analysis {

// One draw: how many lines, and the share of them that missed in the last pass.
struct Draw {
  double lines = 0;
  double miss_share = 0;
};

// The share of n drawn lines whose set, among `sets` equally likely ones, holds more than `ways`
// of them.
double overflow_share(double lines, double sets, int ways);

// Each share is weighed by its variance under the model: lines miss a whole set at a time, so a
// share scatters from draw to draw far more than one of independent lines would.
struct WaysFit {
  int ways = 0;
  double sets = 0;  // the best-fitting set count for these ways
  double chi2 = 0;  // its Pearson chi-square over the draws
};

struct SetOccupancy {
  WaysFit best;
  std::optional<WaysFit> runner_up;  // the best fit of any other way count
  double sets_lo = 0;  // the set counts whose misfit lies within the profile bound (about 95 %)
  double sets_hi = 0;
  double rms = 0;  // the best fit's root-mean-square share error
  // The best fit's chi-square per degree of freedom, at least 1: how much more the draws scatter
  // than the model allows (a replacement other than LRU or FIFO, misjudged loads). It widens the
  // set interval and tempers the posterior.
  double dispersion = 1;
  // The best way count's posterior among all (flat prior, chi-square differences over the
  // dispersion): where neighbouring way counts with other set counts fit as well (many ways, few
  // sets), it stays low.
  double best_probability = 0;
  std::vector<WaysFit> per_ways;
};

// The fit over 1 to `max_ways` ways, each with set counts from capacity / (4 W) to 4 capacity / W
// (capacity in lines); nullopt with fewer than three draws.
std::optional<SetOccupancy> fit_set_occupancy(const std::vector<Draw>& draws, double capacity_lines,
                                              int max_ways);

}  // namespace gputopo::analysis
