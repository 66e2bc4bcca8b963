#include <algorithm>
#include <cmath>

#include "discovery/context.hpp"
#include "discovery/l2_dram_probes.hpp"
#include "discovery/l2_sweep.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

constexpr int kMaxSegments = 16;

// The integer fraction 1/n of the API size nearest to a measured segment, MT4G's alignment, with
// MT4G's confidence: one minus the relative distance. `separation` says how clearly the measurement
// picks this fraction over its neighbour on the measured side: 1 at api/n, 0 half-way to it.
// (analysis::nearest_fraction also offers p/q with p > 1, which no segment count can be.)
struct SegmentFit {
  int count = 1;
  double value = 0;
  double relative_distance = 0;
  double confidence = 0;
  double separation = 0;
};

SegmentFit nearest_segment_count(double measured, double api) {
  SegmentFit best;
  for (int n = 1; n <= kMaxSegments; ++n) {
    const double v = api / n;
    if (n == 1 || std::abs(measured - v) < std::abs(measured - best.value)) {
      best.count = n;
      best.value = v;
    }
  }
  best.relative_distance = std::abs(measured - best.value) / best.value;
  best.confidence = std::max(0.0, 1 - best.relative_distance);
  const int neighbour = measured < best.value ? best.count + 1 : best.count - 1;
  if (neighbour < 1) {
    best.separation = best.confidence;  // above the API size
  } else {
    const double half_gap = std::abs(best.value - api / neighbour) / 2;
    best.separation = std::clamp(1 - std::abs(measured - best.value) / half_gap, 0.0, 1.0);
  }
  return best;
}

// One SM sees its near segment first: a chase at fetch-granularity stride hits near up to one
// segment, then (on a segmented L2) far. The size search brackets that first step; the step is
// then aligned to the nearest 1/n of the API size, as MT4G does, with the distance as confidence.
class L2SegmentProbe final : public Probe {
 public:
  explicit L2SegmentProbe(std::vector<std::string> needs)
      : Probe("l2.segments", {"l2"}, std::move(needs)) {}

  void run(Context& ctx) override {
    const double api = static_cast<double>(ctx.info().l2_bytes);
    auto size = model::Attribute::api(ctx.info().l2_bytes, "B");
    size.method = "cudaDevAttrL2CacheSize";
    ctx.put("l2", "size", size);
    auto fail = [&](const std::string& why, const model::Json& evidence = {}) {
      for (const char* key : {"segmentSize", "segmentCount"}) {
        auto a = model::Attribute::unavailable(model::Source::Measured,
                                               key == std::string("segmentSize") ? "B" : "", why);
        a.evidence = evidence;
        ctx.put("l2", key, a);
      }
    };
    if (api <= 0) return fail("the driver reports no L2 size to align a segment to");

    std::vector<std::string> weaker;
    const std::uint32_t fg = fetch_granularity_or(ctx, l2_target(), 32, weaker);
    SizeSearchSpec spec = l2_search_spec(ctx.info().l2_bytes, fg);
    spec.min_bytes = std::max(spec.step, round_up(ctx.info().l2_bytes / 64, spec.step));
    // A little past the API size, so that an unsegmented L2 shows its one step (to DRAM) here.
    spec.max_bytes = round_up(ctx.info().l2_bytes + ctx.info().l2_bytes / 4, spec.step);
    // At sector stride only the first load of each line leaves the near segment.
    spec.bracket_level_change = false;
    const auto r = search_size(ctx, spec);
    if (!r.established) {
      fail(r.capped ? r.reason : "near-segment step not established: " + r.reason, r.evidence);
      return;
    }

    const auto f = nearest_segment_count(r.value, api);
    model::Json evidence = r.evidence;
    evidence["measuredBytes"] = r.value;
    evidence["batches"] = r.batches;
    evidence["strideBytes"] = fg;
    evidence["fraction"] = "1/" + std::to_string(f.count);
    evidence["relativeDistance"] = f.relative_distance;
    evidence["fractionConfidence"] = f.confidence;
    evidence["fractionSeparation"] = f.separation;
    const double confidence = std::min(r.confidence, f.confidence);
    const std::string method =
        "pchase-size-sweep of the near->far step, aligned to the nearest 1/n of the API L2 size";
    auto segment = model::Attribute::measured(f.value, "B", method, confidence);
    segment.interval = model::Interval{r.lo, r.hi};
    segment.evidence = evidence;
    segment.reason = join(weaker);
    ctx.put("l2", "segmentSize", segment);
    auto count = model::Attribute::measured(f.count, "", method, confidence);
    count.evidence = {{"measuredSegmentBytes", r.value},
                      {"apiBytes", api},
                      {"relativeDistance", f.relative_distance}};
    count.reason = segment.reason;
    ctx.put("l2", "segmentCount", count);
  }
};

}  // namespace

std::unique_ptr<Probe> make_l2_segment_probe(std::vector<std::string> needs) {
  return std::make_unique<L2SegmentProbe>(std::move(needs));
}

}  // namespace gputopo::discovery
