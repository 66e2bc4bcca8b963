#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// How well `schedulers` explains cycles[w - 1], the cycles per step of w warps of one block (each
// thread 8 independent FFMA chains): t(w) = max(latency floor, issue x ceil(w / schedulers),
// pipe x w), the floor t(1) or none, issue and pipe chosen to fit best. The largest relative
// misfit of one warp count.
double scheduler_misfit(const std::vector<double>& cycles, int schedulers);

struct SchedulerFit {
  int schedulers = 0;
  double misfit = 0;
  int runner_up = 0;  // the best other count
  double runner_up_misfit = 0;
  std::vector<int> consistent;  // every count that fits within the tolerance
};
// The count of 1 to 16 that fits best, or nullopt for fewer than two warp counts.
std::optional<SchedulerFit> fit_schedulers(const std::vector<double>& cycles);

// Writes compute.warpSchedulers: the warp schedulers (SM sub-partitions) of an SM, from where the
// time of one block stops staying flat as its warps grow (Wong et al.'s issue experiment).
std::unique_ptr<Probe> make_scheduler_probe();

}  // namespace gputopo::discovery
