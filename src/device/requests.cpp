#include "device/requests.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

namespace gputopo::device {
namespace {
constexpr std::array<std::pair<Space, std::string_view>, 6> kSpaceNames{{
    {Space::L1, "l1"},
    {Space::L2, "l2"},
    {Space::ReadOnly, "readOnly"},
    {Space::Texture, "texture"},
    {Space::Constant, "constant"},
    {Space::Shared, "shared"},
}};
}  // namespace

std::string_view to_string(Space s) {
  for (const auto& [space, name] : kSpaceNames)
    if (space == s) return name;
  return "unknown";
}

std::optional<Space> space_from_string(std::string_view name) {
  for (const auto& [space, n] : kSpaceNames)
    if (n == name) return space;
  return std::nullopt;
}

bool sm_private(Space s) { return s != Space::L2; }

bool global_load(Space s) { return s == Space::L1 || s == Space::L2 || s == Space::ReadOnly; }

std::uint64_t region_offset(const ChaseRequest& r) {
  const std::uint64_t aligned = (std::max<std::uint64_t>(r.array_bytes, 1) + kArrayAlignment - 1) /
                                kArrayAlignment * kArrayAlignment;
  return std::uint64_t{r.region.value_or(0)} * aligned;
}

std::string_view to_string(Timing t) { return t == Timing::Chain ? "chain" : "perLoad"; }

std::optional<std::string> chain_problem(const ChaseRequest& r) {
  if (!chain_timed(r))
    return r.segment_loads ? std::optional<std::string>("a segment length needs chain timing")
                           : std::nullopt;
  const std::uint32_t segment = segment_loads(r);
  if (segment < kMinSegmentLoads || segment > kChainSegmentLoads || segment % kMinSegmentLoads != 0)
    return "a chain segment holds a multiple of " + std::to_string(kMinSegmentLoads) +
           " loads up to " + std::to_string(kChainSegmentLoads) + ", got " +
           std::to_string(segment);
  if (r.recorded_loads == 0 || r.recorded_loads % segment != 0)
    return "chain timing needs a positive multiple of " + std::to_string(segment) +
           " recorded loads (the segment), got " + std::to_string(r.recorded_loads);
  if (r.record_indices) return std::string("chain timing records no indices");
  const bool device_memory =
      r.space == Space::L1 || r.space == Space::L2 || r.space == Space::ReadOnly;
  if (device_memory && r.stride_bytes % 8 != 0)
    return "a chain in device memory holds 8-byte addresses: the stride must be a multiple of 8, "
           "got " +
           std::to_string(r.stride_bytes);
  return std::nullopt;
}

std::string_view to_string(Warmup w) {
  switch (w) {
    case Warmup::Load:
      return "load";
    case Warmup::Store:
      return "store";
    case Warmup::LoadStore:
      return "loadStore";
  }
  return "unknown";
}

std::optional<std::string> warmup_problem(const ChaseRequest& r) {
  if (warmup_of(r) == Warmup::Load) return std::nullopt;
  if (r.space != Space::L1 && r.space != Space::L2)
    return std::string("warm-up stores need the L1 or L2 space");
  if (r.pattern != Pattern::Strided) return std::string("warm-up stores need the strided pattern");
  if (chain_timed(r)) return std::string("warm-up stores need per-load timing");
  if (r.stride_bytes % 32 != 0)
    return "warm-up stores write whole 32-byte sectors: the stride must be a multiple of 32, got " +
           std::to_string(r.stride_bytes);
  return std::nullopt;
}

std::optional<std::string> sequence_problem(const ChaseRequest& r) {
  if (r.pattern != Pattern::Sequence) {
    if (!r.sequence.empty()) return std::string("only a sequence pattern lists a sequence");
    return std::nullopt;
  }
  if (r.sequence.empty() || r.sequence.size() > kMaxSequence)
    return "a sequence lists 1 to " + std::to_string(kMaxSequence) + " elements, got " +
           std::to_string(r.sequence.size());
  if (r.sequence.front() != 0) return std::string("a sequence starts at element 0");
  if (r.timing.value_or(Timing::PerLoad) != Timing::PerLoad || r.warmup_passes != 0)
    return std::string("a sequence is timed per load, with no warm-up passes");
  const std::uint64_t elements = r.stride_bytes == 0 ? 0 : r.array_bytes / r.stride_bytes;
  const std::uint64_t last = *std::max_element(r.sequence.begin(), r.sequence.end());
  if (last >= elements)
    return "sequence element " + std::to_string(last) + " lies past the array's " +
           std::to_string(elements) + " elements";
  // Every backend checks each request several times: a bit an element where the bitmap is no
  // larger than the sequence (sorting a copy of thousands cost a millisecond a request), a sorted
  // copy where the elements lie far apart (a bitmap of a sparse sequence over a large array would
  // take megabytes).
  const std::string repeated = "a sequence lists every element once";
  if (last / 64 < r.sequence.size()) {
    std::vector<std::uint64_t> seen(last / 64 + 1, 0);
    for (const std::uint64_t e : r.sequence) {
      const std::uint64_t bit = std::uint64_t{1} << (e % 64);
      if (seen[e / 64] & bit) return repeated;
      seen[e / 64] |= bit;
    }
    return std::nullopt;
  }
  std::vector<std::uint64_t> sorted = r.sequence;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return repeated;
  return std::nullopt;
}

std::string_view to_string(StreamKind k) {
  switch (k) {
    case StreamKind::Read:
      return "read";
    case StreamKind::Write:
      return "write";
    case StreamKind::Copy:
      return "copy";
  }
  return "unknown";
}

std::string_view to_string(StreamSharing s) {
  return s == StreamSharing::Shared ? "shared" : "own";
}

std::optional<std::string> read_rate_problem(const ReadRateRequest& r, int sm_count) {
  if (r.sms.empty() || r.line_offsets.empty() || r.repeats == 0)
    return "read rate: needs SMs, lines and repeats";
  std::vector<char> seen(static_cast<std::size_t>(std::max(sm_count, 0)), 0);
  for (const int sm : r.sms) {
    if (sm < 0 || sm >= sm_count || seen[static_cast<std::size_t>(sm)])
      return "read rate: SM " + std::to_string(sm) + " is out of range or listed twice";
    seen[static_cast<std::size_t>(sm)] = 1;
  }
  return std::nullopt;
}

std::optional<std::string> reduction_problem(const ReductionRequest& r, int sm_count) {
  if (r.line_offsets.empty() || r.rounds == 0) return "reductions: needs lines and rounds";
  if (r.line_offsets.size() > kMaxReductionLines)
    return "reductions: at most " + std::to_string(kMaxReductionLines) + " lines";
  if (r.timed_sm && (*r.timed_sm < 0 || *r.timed_sm >= sm_count))
    return "reductions: SM " + std::to_string(*r.timed_sm) + " is out of range";
  if (r.timed_sm && r.line_offsets.size() * r.rounds > 4 * kMaxReductionLines)
    return "reductions: at most " + std::to_string(4 * kMaxReductionLines) + " timed visits";
  if (r.span_bytes > (std::uint64_t{1} << 30)) return "reductions: a span over 1 GiB";
  for (const std::uint64_t offset : r.line_offsets)
    if (offset % 4 != 0 || offset + 128 > r.span_bytes)
      return "reductions: line offset " + std::to_string(offset) +
             " is not 4 B aligned or its 128 B lie past the span";
  return std::nullopt;
}

}  // namespace gputopo::device
