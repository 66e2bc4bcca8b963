#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gputopo::device {

// A logical memory space, i.e. the load instruction a chase uses.
enum class Space : std::uint8_t {
  L1,        // global memory through L1 (ld.global.ca)
  L2,        // global memory, L2 only (ld.global.cg)
  ReadOnly,  // read-only data path (ld.global.nc)
  Texture,   // tex1Dfetch on a texture object
  Constant,  // ld.const over a __constant__ array (at most 64 KiB)
  Shared,    // ld.shared
};

std::string_view to_string(Space s);
std::optional<Space> space_from_string(std::string_view name);
// True for spaces whose caches are private to an SM (one request per SM can run at once).
bool sm_private(Space s);
// True for the spaces that chase an array in device memory through a global load.
bool global_load(Space s);

// How the chased elements are linked.
enum class Pattern : std::uint8_t {
  Strided,  // element i points to i + stride, wrapping at the end of the array
  Random,   // a random cyclic permutation of the strided elements (seeded, reproducible)
  // The elements the request lists in `sequence`, in that order, as one cycle. Elements not listed
  // are never loaded. A line is revisited through distinct elements of one sector (e.g. 4-byte
  // elements at offsets 0, 4, 8 of a line), so any access order over lines can be chased.
  Sequence,
};
// The most elements a sequence may list.
inline constexpr std::size_t kMaxSequence = std::size_t{1} << 16;

// How a chase's recorded loads are timed.
enum class Timing : std::uint8_t {
  // Each load between two clock reads: which level served each load (the clock reads overlap the
  // load, so a sample is not the load's latency).
  PerLoad,
  // The dependent chain timed as a whole, in segments of segment_loads(request) loads with no
  // clock read inside a segment: each result cycle count is one segment's total (less the
  // result's overhead_cycles, the segment's own clock reads), so that over the loads is the
  // load-to-use latency. The chain holds what the load returns (64-bit addresses in device memory,
  // shared-window addresses, constant-bank offsets, texel indices): no address arithmetic.
  Chain,
};
// Loads per chain segment when the request names none (every recording made before requests
// named one), and the bounds a request may name: short segments leave most of them clear of a
// rare slow load, long ones dilute the segment's clock reads.
inline constexpr std::uint32_t kChainSegmentLoads = 256;
inline constexpr std::uint32_t kMinSegmentLoads = 16;
std::string_view to_string(Timing t);

// What the untimed warm-up passes of a chase do to each chased element.
enum class Warmup : std::uint8_t {
  Load,  // load it through the space (the default)
  // One pass writing each element's 32-byte sector with plain global stores (st.global.wb): the
  // element's own link, zeros in the sector's other words. Nothing is loaded, so the timed loads
  // show whether a store brought the line into a cache (write-allocate).
  Store,
  // `warmup_passes` load passes, then one store pass as above: the timed loads show whether a
  // store that hits a line keeps it.
  LoadStore,
};
std::string_view to_string(Warmup w);

// One fine-grained pointer chase. The array of `array_bytes` holds array_bytes / stride_bytes
// chased elements. `warmup_passes` full passes run untimed, then `recorded_loads` loads are timed
// (one by one, or as a chain), continuing around the cycle.
struct ChaseRequest {
  Space space = Space::L1;
  std::uint64_t array_bytes = 0;
  std::uint32_t stride_bytes = 128;
  std::uint32_t warmup_passes = 1;
  std::uint32_t recorded_loads = 256;
  Pattern pattern = Pattern::Strided;
  int sm = -1;  // placement: run on this SM, or -1 for any
  bool record_indices = false;
  // Where in device memory the array lies: region k of the backend's 2 MiB-aligned array space
  // (nullopt: region 0). Repeats of a size in several regions sample whatever makes one place of
  // an array differ from another (a physically indexed cache maps them differently).
  std::optional<std::uint32_t> region;
  // nullopt: per-load timing. Chain timing needs `recorded_loads` a multiple of
  // kChainSegmentLoads, no recorded indices, and in device memory a stride of whole 8-byte words.
  std::optional<Timing> timing;
  // Chain timing: loads per segment, a multiple of kMinSegmentLoads up to kChainSegmentLoads that
  // divides recorded_loads (nullopt: kChainSegmentLoads).
  std::optional<std::uint32_t> segment_loads;
  // Pattern::Sequence: element indices (units of stride_bytes), distinct, the first 0 (the chase
  // starts at element 0). A sequence is timed per load and has no warm-up passes: every load it
  // needs, warming ones included, is listed and recorded.
  std::vector<std::uint64_t> sequence;
  // nullopt: Warmup::Load. Stores need a plain chase (not interference) in the L1 or L2 space,
  // the strided pattern, per-load timing and a stride of whole 32-byte sectors.
  std::optional<Warmup> warmup;
};
inline Warmup warmup_of(const ChaseRequest& r) { return r.warmup.value_or(Warmup::Load); }
inline bool chain_timed(const ChaseRequest& r) { return r.timing == Timing::Chain; }
inline std::uint32_t segment_loads(const ChaseRequest& r) {
  return r.segment_loads.value_or(kChainSegmentLoads);
}
// Why a chain-timed request cannot run (both backends refuse it with this), or nullopt.
std::optional<std::string> chain_problem(const ChaseRequest& r);
// Why a Pattern::Sequence request (or a sequence on another pattern) cannot run, or nullopt.
std::optional<std::string> sequence_problem(const ChaseRequest& r);
// Why a request's warm-up stores cannot run, or nullopt (every backend refuses it with this).
std::optional<std::string> warmup_problem(const ChaseRequest& r);
inline constexpr std::uint32_t kMaxRegion = 63;
// Arrays start 2 MiB-aligned; region k of a request starts k aligned array sizes past region 0.
inline constexpr std::uint64_t kArrayAlignment = std::uint64_t{2} << 20;
std::uint64_t region_offset(const ChaseRequest& r);

// Requests measured together. For SM-private spaces the backend may run them concurrently, one
// per SM; for L2 and DRAM it runs them one after another.
struct ChaseBatch {
  std::vector<ChaseRequest> requests;
  // L1/shared split as cudaFuncAttributePreferredSharedMemoryCarveout (0..100 % shared), or
  // nullopt for the driver's default. The value actually applied is reported in the result.
  std::optional<int> carveout_percent;
  // cudaLimitMaxL2FetchGranularity (0..128 B, a hint) for the batch, or nullopt to leave the
  // driver's setting. The driver rounds and clamps it; the limit in effect is reported in the
  // result. A request below the smallest fetch the hardware supports gets that smallest fetch.
  std::optional<std::uint32_t> l2_fetch_limit_bytes;
};

// The largest cudaLimitMaxL2FetchGranularity the driver accepts.
inline constexpr std::uint32_t kMaxL2FetchLimitBytes = 128;

// Interference: A warms, then B warms, then A is timed. If B evicted A's data, A now misses.
struct InterferenceRequest {
  enum class Placement : std::uint8_t {
    SameThread,  // A and B on one thread (e.g. two spaces: sharing tests)
    TwoThreads,  // A and B on two threads of one block (amount tests)
    // A on SM `sm`, B on SM `sm_b`, in two blocks (caches shared among SMs: AMD's, the L2's
    // segments). Each block may warm its array with all its threads, so the order of the loads
    // within a warm-up pass is not kept; A and B chase one space.
    TwoSms,
  };
  ChaseRequest a;
  ChaseRequest b;
  Placement placement = Placement::SameThread;
  std::uint32_t thread_a =
      0;  // TwoThreads: thread index in the block (warp = t / 32, lane = t % 32)
  std::uint32_t thread_b = 32;
  int sm = -1;
  std::optional<int> sm_b = std::nullopt;  // TwoSms: the SM B runs on
};

struct InterferenceBatch {
  std::vector<InterferenceRequest> requests;
  std::optional<int> carveout_percent;
};

enum class StreamKind : std::uint8_t { Read, Write, Copy };
std::string_view to_string(StreamKind k);

// Who reads what in a stream: every part of the buffer by one warp a pass (Own), or the whole
// buffer by every block (Shared: all SMs read the same data at about the same time).
enum class StreamSharing : std::uint8_t { Own, Shared };
std::string_view to_string(StreamSharing s);

// Bandwidth over a buffer of `bytes` (each of source and destination for Copy). `space` says which
// path the stream measures:
// - nullopt or L2: device memory through L2-only loads and plain stores, so a buffer that fits in
//   L2 measures L2 however often it is passed over, one far larger than L2 device memory;
// - L1: every block reads its own `bytes` slice through L1, again and again (the SMs' L1s);
// - Shared: every block reads `bytes` of its own shared memory, again and again.
// L1 and Shared take Read only; `sharing` Shared takes an L2 read only. The backend picks the
// fastest of a small family of kernels (bytes per access, accesses in flight per thread, blocks per
// SM, threads per block) and reports it.
struct StreamRequest {
  StreamKind kind = StreamKind::Read;
  std::uint64_t bytes = 0;
  std::uint32_t repeats = 5;
  std::optional<Space> space;
  std::optional<StreamSharing> sharing = std::nullopt;  // Own where not set
};
// SMs `sms` (distinct) load the lines at byte offsets `line_offsets` of one L2-resident buffer in
// turn, each SM an equal share, as fast as they can; an untimed launch warms the lines, then each
// repeat times one launch. Which shared paths bound the rate (a GPC's port to the L2, one L2
// slice serving several lines) tells where SMs and lines sit.
struct ReadRateRequest {
  std::vector<int> sms;
  std::vector<std::uint64_t> line_offsets;
  std::uint32_t repeats = 3;
};
// Every SM's warps send reductions (`red.global.add`, one 4-byte word a lane: one L2 request a warp
// instruction) to the lines at byte offsets `line_offsets` of one buffer in turn, `rounds` to each
// line a warp, and the kernel times itself. Each L2 slice serves reductions at a bounded rate, so
// a set whose lines share a slice takes longer than one on distinct slices (docs/methods.md,
// "Contention classes").
// `span_bytes` is the buffer the offsets lie in: the same over the calls that compare lines keeps
// them the same memory (a backend allocates again only for a larger span). With `timed_sm`, one
// thread on that SM instead visits the lines in turn, `rounds` passes, each visit
// kReductionChain dependent `atom.global.add` on the line, and the result holds each visit's
// cycles a reduction (the per-SM x per-slice latency).
inline constexpr std::uint32_t kReductionChain = 8;
struct ReductionRequest {
  std::vector<std::uint64_t> line_offsets;
  std::uint64_t span_bytes = 0;
  std::uint32_t rounds = 8;
  std::optional<int> timed_sm = std::nullopt;
};
// Why a reduction request cannot run (no lines or rounds, more than kMaxReductionLines lines or
// 4 x that many visits, a span over 1 GiB, an offset not 4 B aligned or its 128 B past the span,
// a timed SM out of range), or nullopt.
inline constexpr std::size_t kMaxReductionLines = 128;
std::optional<std::string> reduction_problem(const ReductionRequest& r, int sm_count);

// Why a read-rate request cannot run on a GPU of `sm_count` SMs (no SMs, lines or repeats, or an
// SM out of range or listed twice: every backend refuses it with this), or nullopt.
std::optional<std::string> read_rate_problem(const ReadRateRequest& r, int sm_count);

// The path a stream request measures (L2 when not set).
inline Space stream_space(const StreamRequest& r) { return r.space.value_or(Space::L2); }

}  // namespace gputopo::device
