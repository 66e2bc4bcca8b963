#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/summary.hpp"
#include "analysis/sweep.hpp"
#include "device/requests.hpp"
#include "device/results.hpp"
#include "discovery/context.hpp"
#include "discovery/target.hpp"

// Small pieces every probe uses to build requests and read results.
namespace gputopo::discovery {

// Per-load latencies of a chase result with the timing overhead subtracted.
std::vector<double> latencies(const device::ChaseResult& r);
// All results' latencies, pooled.
std::vector<double> pooled_latencies(const device::ChaseBatchResult& b);

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

// Writes `<key>` (cycles) and `<key>Ns` for a latency sample: value = median, evidence = mean,
// median, p95, stdev, min, max, sample count and the timing overhead.
void put_latency(Context& ctx, const std::string& element, const std::string& key,
                 const std::vector<double>& sample, double overhead_cycles,
                 const device::RunConditions& conditions, const std::string& method,
                 double confidence, const std::string& reason = {});

// Joins weaker-input notes into one reason.
std::string join(const std::vector<std::string>& parts, const std::string& sep = "; ");

std::uint64_t round_up(std::uint64_t v, std::uint64_t multiple);

}  // namespace gputopo::discovery
