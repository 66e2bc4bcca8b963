#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/interval.hpp"
#include "analysis/summary.hpp"
#include "analysis/sweep.hpp"
#include "device/requests.hpp"
#include "device/results.hpp"
#include "discovery/chase_latencies.hpp"
#include "discovery/context.hpp"
#include "discovery/target.hpp"

// Small pieces every probe uses to build requests and read results.
namespace gputopo::discovery {

// The SM on which single-SM latencies past L1 (L2, device memory, L1 misses) are measured: the L2
// hit latency depends on the SM, and the miss penalty compares the two on one SM.
inline constexpr int kLatencySm = 0;

// Where a sweep's SM-private chases run: all on one SM (an index), on any SM (-1), or
// kSmsInTurn: request j on SM j mod the SM count, so that N requests take N / SMs launches instead
// of N. Capacity sweeps spread: with the chase's records kept out of the L1, many SMs at once read
// the L1 as one SM does (docs/results/h200/l1-records/).
inline constexpr int kSmsInTurn = -2;
int placed_sm(int placement, std::size_t index, int sm_count);
// The placement as the evidence shows it: the SM, or "each in turn".
model::Json placement_json(int placement);

// Loads per chain segment of the discovery's chains: short enough that at one slow load in a
// hundred (an interrupt, a refresh, another process) most segments hold none, so that the clean
// ones give the latency and the share of the others says how far to trust it.
inline constexpr std::uint32_t kSegmentLoads = 16;
// A chain-timed chase (device::Timing::Chain) over `bytes` at `stride`: `warmup` untimed passes,
// then at least `loads` dependent loads (in kChainSegmentLoads steps) timed in segments of
// kSegmentLoads.
device::ChaseRequest chain_request(device::Space space, std::uint64_t bytes, std::uint32_t stride,
                                   std::uint32_t warmup, std::uint32_t loads = 2048);
// The latency of the loads of a chain-timed result: the mean of its clean segments, those within
// four robust standard deviations of the median (analysis::clean_level); `sd` is the standard
// deviation of one load's latency, from the clean segments' spread.
struct SegmentLevel {
  double cycles = 0;
  double load_sd = 0;
  double outlier_share = 0;
  std::size_t segments = 0;
  double segment_sd = 0;  // of the clean segments' per-load means
  std::size_t clean = 0;  // clean segments
};
SegmentLevel segment_level(std::span<const device::ChaseResult> results);

// The load-to-use latency of a level: chains over footprints that all lie inside the level (e.g.
// a quarter and an eighth of its size). Per footprint, the mean of its clean segments
// (segment_level: a rare slow load lengthens a segment, which then leaves the mean); the value is
// the median over footprints, the confidence their agreement (full within 1 %, none at 10 %),
// capped by the share of outlier segments (full up to a quarter, none at half): a footprint that
// leaks into the next level, or a level that is no plateau, shows as disagreement.
// The interval: per footprint, the clean mean's 95 % repeat interval (analysis/interval.hpp), the
// hull over footprints, widened by the clock's resolution (2 cycles a segment).
struct ChainLatency {
  double cycles = 0;
  double confidence = 0;
  model::Interval interval;
  model::Json evidence;  // per footprint: bytes, SM, median, spread of its segments
};
// Where a footprint still lets some loads hit a faster level (a share of near hits in a chase past
// the near L2 level), its chain mixes the two: the level's own latency is (chain - share x faster)
// / (1 - share), with the share from per-load samples over the same footprint.
struct FasterHits {
  double cycles = 0;           // the faster level's chain latency
  std::vector<double> shares;  // per distinct footprint, in order
};
// `results[i]` chased `footprints[i]` bytes; results of one footprint on several SMs pool. A
// footprint whose loads are over 90 % faster hits is left out.
std::optional<ChainLatency> chain_latency(std::span<const device::ChaseResult> results,
                                          std::span<const std::uint64_t> footprints,
                                          const std::optional<FasterHits>& faster = std::nullopt);
// A latency's two keys: in cycles and in ns.
struct LatencyKeys {
  const model::Key& cycles;
  const model::Key& ns;
};
inline constexpr LatencyKeys kLatencyKeys{keys::latency, keys::latencyNs};
inline constexpr LatencyKeys kNearLatencyKeys{keys::nearLatency, keys::nearLatencyNs};
inline constexpr LatencyKeys kFarLatencyKeys{keys::farLatency, keys::farLatencyNs};
// Writes a chain latency in cycles and in ns, confidence capped at `cap`.
void put_chain_latency(Context& ctx, const std::string& element, const LatencyKeys& key,
                       const ChainLatency& latency, const device::RunConditions& conditions,
                       const std::string& method, double cap = 1.0, const std::string& reason = {});
// The median, p95 and dominant-level share of per-load samples, as evidence beside a chain.
model::Json per_load_evidence(const std::vector<double>& sample, double overhead_cycles);

// A chase over `bytes` at `stride` in the target's space: `warmup` untimed passes, then enough
// timed loads to see the array (at least `min_loads`, at most `max_loads`).
device::ChaseRequest chase_request(device::Space space, std::uint64_t bytes, std::uint32_t stride,
                                   std::uint32_t warmup, std::uint32_t max_loads = 2048,
                                   std::uint32_t min_loads = 256);
// A chase whose timed loads are exactly one pass over the array (at most `max_loads`): the form
// interference tests time, so that every element evicted by B shows up once.
device::ChaseRequest one_pass_request(device::Space space, std::uint64_t bytes,
                                      std::uint32_t stride, std::uint32_t max_loads = 4096);

// The carve-out a batch for this target is run under (the option for caches it applies to).
std::optional<int> carveout_for(const Context& ctx, const Target& t);
// Records the carve-out a batch for this target actually ran under.
void record_carveout(Context& ctx, const Target& t, const device::RunConditions& c);

// The target's fetch granularity for dependent probes: the established value, or `fallback`
// with the reason appended to `weaker` (so the dependent states its weaker input).
std::uint32_t fetch_granularity_or(const Context& ctx, const Target& t, std::uint32_t fallback,
                                   std::vector<std::string>& weaker);

// Why the target cannot be measured at all (e.g. global loads not cached in L1), or nullopt.
std::optional<std::string> gate(const Context& ctx, const Target& t);

// Adds `value` under `name` to the evidence of an existing finding.
void add_evidence(Context& ctx, const std::string& element, const model::Key& key,
                  const std::string& name, model::Json value);

// `stride` rounded up to what a chain in `space` can use (whole 8-byte addresses in device
// memory).
std::uint32_t chain_stride(device::Space space, std::uint32_t stride);

// Joins weaker-input notes into one reason.
std::string join(const std::vector<std::string>& parts, const std::string& sep = "; ");

std::uint64_t round_up(std::uint64_t v, std::uint64_t multiple);

}  // namespace gputopo::discovery
