#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "device/requests.hpp"
#include "device/results.hpp"
#include "discovery/context.hpp"
#include "model/attribute.hpp"

namespace gputopo::discovery {

// Where a capacity lies: the largest array that a space's chase still hits in full.
struct SizeSearchSpec {
  // How the capacity is read from the sweeps after the bracket (docs/discovery.md):
  // SteepestRise: every round placed by confirm_sm, the miss fraction per size fitted
  // by isotonic regression, the capacity where the steepest rise of that fit starts
  // (analysis::steepest_rise); rounds zoom on the rise until it is resolved or the step is the
  // finest. LastingOnset: batched rounds narrowing to the onset of lasting misses (the first size
  // from which every larger one misses significantly), then confirmed on confirm_sm.
  enum class Estimator { LastingOnset, SteepestRise };
  Estimator estimator = Estimator::LastingOnset;
  device::Space space = device::Space::L1;
  std::uint32_t stride = 32;      // bytes between chased elements (the fetch granularity)
  std::uint64_t step = 32;        // finest step of the sweep (the fetch granularity)
  std::uint64_t min_bytes = 512;  // the bracket starts here
  std::uint64_t max_bytes = 0;    // and doubles up to here (a space limit or a sane maximum)
  std::optional<int> carveout;    // for every batch
  // Sizes per round after the bracket (at least 3): one per SM for SM-private spaces. Each point
  // chases its whole array once to warm it, so a search over large arrays pays for every point.
  std::size_t points_per_batch = 64;
  std::uint32_t max_recorded_loads = 2048;
  // The bracket's change must reach a higher latency level in the per-point medians. Off where
  // past capacity only a share of the loads miss (an L2 chased at sector stride: one far hit per
  // line), so that the change shows in the level fractions but not in the medians.
  bool bracket_level_change = true;
  // Factor between the bracket's sizes (2: doubling). Smaller where the bracket spans less than a
  // few doublings and needs points on both sides of the change.
  double bracket_growth = 2.0;
  // Where the rounds after the bracket run (placed_sm: one SM, or kSmsInTurn). LastingOnset then
  // confirms its batched onset with every request on this SM (-1 skips the confirmation).
  int confirm_sm = -1;
  // SteepestRise rounds chase every size in this many places of device memory and pool the loads.
  // Hopper's L1 overflowed in steps that moved by 5-20 KiB from array to array and run to run (not
  // with the physical pages: docs/results/h200/l1-geometry); pooled over places, the curve is the
  // expected one and its rise starts at one size.
  std::uint32_t regions = 1;
  // A level-2 target: per-load latencies under this were served by the level in front (random
  // replacement there keeps some lines of any footprint) and are left out of every point. 0: none.
  double served_in_front_below = 0;
};

struct SizeSearchResult {
  bool established = false;
  double value = 0;  // the largest array size that fits
  double lo = 0;     // the capacity lies in [lo, hi]
  double hi = 0;
  double confidence = 0;
  bool capped = false;  // no change up to max_bytes: the capacity is at least max_bytes
  std::string reason;
  model::Json evidence;              // rounds, transition, plateau latencies
  device::RunConditions conditions;  // of the last batch
  std::size_t batches = 0;
};

// Brackets the first capacity change by doubling (one batch), then sweeps the bracket with one
// point per SM at ever finer steps down to `step` (one batch per round), widening where a round
// finds no clean change, and stops once the change is located to `step` or its transition is
// wider than the sweep's resolution (it cannot be narrowed further).
SizeSearchResult search_size(Context& ctx, const SizeSearchSpec& spec);

// A capacity measured through another view of the same physical cache, checked in one batch:
// sizes from 12 % below to 12 % above it in steps of 2 % (the spec's regions, on confirm_sm), read
// by the steepest-rise estimator against the sweep's own levels. Confirmed where a significant
// rise (p < 0.01) starts within 6 % of `expected`.
struct SizeConfirmation {
  bool confirmed = false;
  double onset = 0;  // where this view's rise starts (0: none)
  double p_value = 1;
  std::string reason;  // why not confirmed
  model::Json evidence;
  device::RunConditions conditions;
};
SizeConfirmation confirm_size(Context& ctx, const SizeSearchSpec& spec, double expected);

}  // namespace gputopo::discovery
