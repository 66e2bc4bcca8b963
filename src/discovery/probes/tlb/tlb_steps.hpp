#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

// Steps of a latency-versus-pages sweep: the plateaus a TLB level's reach separates.
namespace gputopo::discovery {

struct SweepPoint {
  std::uint64_t count = 0;  // chased elements
  double cycles = 0;        // cycles per load
};

struct Plateau {
  double cycles = 0;      // median of its points
  std::size_t first = 0;  // indices into the sweep
  std::size_t last = 0;
};

// Plateaus of a sweep ordered by count: runs of at least two consecutive points within
// `tolerance` of the run's first point, each above the one before by more than 2 x tolerance
// (a run that does not climb joins the plateau before it).
std::vector<Plateau> sweep_plateaus(const std::vector<SweepPoint>& sweep, double tolerance);

}  // namespace gputopo::discovery
