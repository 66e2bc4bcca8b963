#pragma once

#include <optional>
#include <set>
#include <string>

namespace gputopo::discovery {

// How far the discovery goes. Quick is the default main job (about 1.3 s on an H200); Full adds
// the measurements too slow for it (docs/cli.md lists them), each probe deciding what it adds.
enum class Depth { Quick, Full };

struct Options {
  // Elements or probes to run (`l1`, `texture`, `readOnly`, `constantL1`, `constantL15`,
  // `shared`, `l2`, `dram`, `layout`, or a probe name such as `l1.size`); empty runs all. The
  // probes they depend on are added automatically; only the named elements are reported.
  std::set<std::string> only;
  // Wall-time budget for the whole discovery in seconds; nullopt for none. When it runs out, the
  // remaining probes are skipped and the result is marked incomplete.
  std::optional<double> time_budget_s;
  // The L1/shared carve-out (cudaFuncAttributePreferredSharedMemoryCarveout, percent shared)
  // under which L1-family caches are measured. 0 gives L1 the most room; nullopt leaves the
  // driver's default. The value applied is reported with every L1-family element.
  std::optional<int> carveout_percent = 0;
  // Back-off before the first re-run of a disturbed batch or span of phases; each further re-run
  // waits twice as long (docs/busy.md). 0 on simulated and replayed devices, whose load is
  // counted in calls, not seconds.
  double retry_backoff_s = 0.25;
  // Once the GPU is found busy (the driver's account at the start, or a disturbed span), the run
  // measures at most this many seconds more while it stays busy; the phases left are skipped as
  // disturbed (docs/busy.md). nullopt for no limit.
  std::optional<double> busy_budget_s = 20;
  Depth depth = Depth::Quick;
  // Keep every chase batch's points (Result::sweeps) for the HTML report's plots. Each point is a
  // selection over all of its request's timed loads: 30 of the 123 ms that replaying a recorded
  // H200 main job took on the host (2 cores), for a plot only the HTML report draws.
  bool sweeps = false;
};

}  // namespace gputopo::discovery
