#pragma once

#include <concepts>
#include <string_view>
#include <type_traits>

#include "device/compute_request.hpp"
#include "device/links.hpp"
#include "device/requests.hpp"
#include "device/results.hpp"

// The JSON name of every field the manifest stores, listed once per type. Writing and reading
// both walk these lists, so the two directions cannot drift apart. A field added to one of these
// structs must be added here, or it is neither recorded nor matched on replay.
namespace gputopo::device::record {

template <class T, class U>
concept Either = std::same_as<std::remove_const_t<T>, U>;

// Byte offsets written as arithmetic runs: a run of three or more equal steps is one
// {"from", "step", "count"} object, any other offset a number (docs/raw.md).
template <class V>
struct OffsetRuns {
  V& values;
};
template <class V>
OffsetRuns(V&) -> OffsetRuns<V>;

template <Either<ChaseRequest> R, class F>
void visit_fields(R& r, F&& f) {
  f("space", r.space);
  f("arrayBytes", r.array_bytes);
  f("strideBytes", r.stride_bytes);
  f("warmupPasses", r.warmup_passes);
  f("recordedLoads", r.recorded_loads);
  f("pattern", r.pattern);
  f("sm", r.sm);
  f("recordIndices", r.record_indices);
  f("region", r.region);
  f("timing", r.timing);
  f("segmentLoads", r.segment_loads);
  f("sequence", r.sequence);
  f("warmup", r.warmup);
}

template <Either<InterferenceRequest> R, class F>
void visit_fields(R& r, F&& f) {
  f("a", r.a);
  f("b", r.b);
  f("placement", r.placement);
  f("threadA", r.thread_a);
  f("threadB", r.thread_b);
  f("sm", r.sm);
  f("smB", r.sm_b);
}

template <Either<StreamRequest> R, class F>
void visit_fields(R& r, F&& f) {
  f("kind", r.kind);
  f("bytes", r.bytes);
  f("repeats", r.repeats);
  f("space", r.space);
  f("sharing", r.sharing);
}

template <Either<ComputeRequest> R, class F>
void visit_fields(R& r, F&& f) {
  f("op", r.op);
  f("chainLength", r.chain_length);
  f("ilp", r.ilp);
  f("warpsPerBlock", r.warps_per_block);
  f("blocks", r.blocks);
  f("arg", r.arg);
  f("dataBytes", r.data_bytes);
}

template <Either<RunConditions> R, class F>
void visit_fields(R& r, F&& f) {
  f("smClockMhzBefore", r.sm_clock_mhz_before);
  f("smClockMhzAfter", r.sm_clock_mhz_after);
  f("clockChanged", r.clock_changed);
  f("carveoutPercent", r.carveout_percent);
  f("l2FetchLimitBytes", r.l2_fetch_limit_bytes);
  f("elapsedNs", r.elapsed_ns);
  f("elapsedCycles", r.elapsed_cycles);
  f("reruns", r.reruns);
}

// The launch shape of a stream result (its samples and conditions are stored apart).
template <Either<StreamResult> R, class F>
void visit_fields(R& r, F&& f) {
  f("blocks", r.blocks);
  f("threadsPerBlock", r.threads_per_block);
  f("vectorBytes", r.vector_bytes);
  f("unroll", r.unroll);
  f("candidates", r.candidates);
  f("launchCostNs", r.launch_cost_ns);
  f("fromMemo", r.from_memo);
}

template <Either<TransferRequest> R, class F>
void visit_fields(R& r, F&& f) {
  f("kind", r.kind);
  f("memory", r.memory);
  f("numaNode", r.numa_node);
  f("peer", r.peer);
  f("bytes", r.bytes);
  f("repeats", r.repeats);
}

template <Either<TransferResult> R, class F>
void visit_fields(R& r, F&& f) {
  f("seconds", r.seconds);
  f("numaBound", r.numa_bound);
  f("numaReason", r.numa_reason);
}

template <Either<ReadRateRequest> R, class F>
void visit_fields(R& r, F&& f) {
  f("sms", r.sms);
  f("lineOffsets", OffsetRuns{r.line_offsets});
  f("repeats", r.repeats);
}

template <Either<ReadRateResult> R, class F>
void visit_fields(R& r, F&& f) {
  f("gbps", r.gbps);
  f("conditions", r.conditions);
}

template <Either<ReductionRequest> R, class F>
void visit_fields(R& r, F&& f) {
  f("lineOffsets", OffsetRuns{r.line_offsets});
  f("spanBytes", r.span_bytes);
  f("rounds", r.rounds);
  f("timedSm", r.timed_sm);
}

// A timed SM's cycles are stored apart, in the call's sample file.
template <Either<ReductionResult> R, class F>
void visit_fields(R& r, F&& f) {
  f("seconds", r.seconds);
  f("conditions", r.conditions);
}

template <Either<PeerLink> R, class F>
void visit_fields(R& r, F&& f) {
  f("access", r.access);
  f("atomics", r.atomics);
  f("type", r.type);
  f("nvlinkCount", r.nvlink_count);
  f("nvlinkGeneration", r.nvlink_generation);
  f("performanceRank", r.performance_rank);
  f("nvlinkReason", r.nvlink_reason);
}

// Fields added after the first recordings were made: written only when they hold a value, so a
// recording without them reads as "not set" and records again unchanged.
inline constexpr std::string_view kLaterFields[] = {"l2FetchLimitBytes",
                                                    "region",
                                                    "timing",
                                                    "space",
                                                    "unroll",
                                                    "candidates",
                                                    "arg",
                                                    "smB",
                                                    "sequence",
                                                    "warmup",
                                                    "dataBytes",
                                                    "sharing",
                                                    "segmentLoads",
                                                    "launchCostNs",
                                                    "fromMemo",
                                                    "timedSm"};

constexpr bool later_field(std::string_view key) {
  for (const auto k : kLaterFields)
    if (k == key) return true;
  return false;
}

template <class T>
concept HasFields = requires(T& t) {
  visit_fields(t, [](const char*, auto&) {});
};

}  // namespace gputopo::device::record
