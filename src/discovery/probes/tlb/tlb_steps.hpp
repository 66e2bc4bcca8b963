#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

// Steps of a latency-versus-pages sweep: the plateaus a TLB level's reach separates.
namespace gputopo::discovery {

struct SweepPoint {
  std::uint64_t count = 0;  // chased elements
  double cycles = 0;        // cycles per load
  double apart = 0;         // the chain one L2 line past the page less the one nine lines past
};

struct Plateau {
  double cycles = 0;      // median of its points
  std::size_t first = 0;  // indices into the sweep
  std::size_t last = 0;
};

// The standard error of the mean of the sweep's points first..last: each point a mean over `count`
// lines whose L2 hits spread by `line_sd`, or the points' own scatter where larger.
double run_error(const std::vector<SweepPoint>& sweep, std::size_t first, std::size_t last,
                 double line_sd);

// Standard errors by which a run must climb above the plateau before it to be a step of its own.
constexpr double kStepErrors = 4;

// Plateaus of a sweep ordered by count: runs of at least two consecutive points within
// `tolerance` of the run's first point, each above the one before by more than 2 x tolerance, or
// by more than the tolerance and kStepErrors standard errors of the two runs' means (`line_sd`:
// the spread of one line's L2 hit, which a mean over few lines keeps much of). A run that does not
// climb joins the plateau before it, whose median then takes in its points. Hopper's first TLB
// level steps by 4-6 % of an L2 hit, about twice the 2 % tolerance, while its chains of 2-4 lines
// read up to 6 cycles apart.
// `floor`: the level below the first step where other chains know it to a fraction of a cycle (the
// L2 hit over the stride sweep's long chains). A first plateau within the tolerance of it is taken
// to lie there when the next run is tested: its own mean over 2-11 lines can be several cycles off
// (an H200's, with lines 21 cycles apart, hid an 11-cycle step four standard errors wide). A run
// at or under the floor plus the tolerance never starts a plateau: it holds L2 hits.
std::vector<Plateau> sweep_plateaus(const std::vector<SweepPoint>& sweep, double tolerance,
                                    double line_sd, std::optional<double> floor = std::nullopt);

}  // namespace gputopo::discovery
