#include <algorithm>
#include <cmath>

#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// Agreement of the measured L2 capacity with the API size that still counts as a confirmation.
constexpr double kAgree = 0.1;

// Past one segment the far segments hold what the near one evicts, so one SM hits in L2 up to the
// whole L2 and misses to device memory beyond it. A size search at line stride from just past the
// near step finds that second step; on an unsegmented L2 the near step is already the DRAM step.
// The step is the measured capacity (l2.capacity), with the API size beside it as a cross-check.
// It does not rest on the segment count being established: only the search's start does.
class L2CapacityProbe final : public Probe {
 public:
  L2CapacityProbe() : Probe("l2.capacity", {"l2"}) {
    declare({{"l2", &keys::segmentSize},
             {"l2", &keys::segmentCount},
             {"l2", &keys::lineSize},
             {"l2", &keys::fetchGranularity}},
            {{"l2", &keys::capacity}});
  }

  void run(Context& ctx) override {
    const SegmentSpan span = segment_span(ctx);
    const auto* segment = ctx.get("l2", keys::segmentSize);
    if (!span.measured) {
      note(ctx, {}, "not cross-checked: the near-segment step was not measured");
      return;
    }
    const double api = static_cast<double>(ctx.info().l2_bytes());
    // Past the largest segment the count allows (nearEndBytes): where the count is not
    // established, the near level may reach the larger fraction the step lies between.
    const double near_hi = segment->evidence.value("nearEndBytes", segment->interval->hi);
    if (span.established && span.fewest == 1) {
      model::Json e = {
          {"dramStepBytes", segment->evidence.value("measuredBytes", near_hi)},
          {"method", "the near step of l2.segments (one segment: it is the DRAM step)"}};
      const double step = segment->evidence.value("measuredBytes", near_hi);
      finish(ctx, e, {step, std::max(step, near_hi)}, api, segment->confidence.value_or(0));
      return;
    }
    std::vector<std::string> weaker;
    const std::uint32_t stride = l2_line_or_fetch(ctx, weaker);
    SizeSearchSpec spec = l2_search_spec(ctx.info().l2_bytes(), stride);
    // The search starts past the end of the near->far transition and must find a step whose
    // plateau before it is the far level, not the near one: the near->far step's tail on a gradual
    // transition would otherwise be read as the first change.
    spec.min_bytes = round_up(static_cast<std::uint64_t>(near_hi * 1.1), spec.step);
    spec.max_bytes = round_up(ctx.info().l2_bytes() + ctx.info().l2_bytes() / 2, spec.step);
    // The bracket spans little more than one doubling: grow by a quarter to have points on both
    // sides of the step.
    spec.bracket_growth = 1.25;
    const double near_level = segment->evidence.value("nearLevelLatency", 0.0);
    double far_level = 0;
    if (segment->evidence.contains("transition"))
      far_level = segment->evidence["transition"].value("latencyAfter", 0.0);
    // Latencies below this lie at the near level (half-way between the near and far levels).
    const double near_bound =
        near_level > 0 && far_level > near_level ? (near_level + far_level) / 2 : 0.0;
    SizeSearchResult r;
    bool near_step = false;
    model::Json skipped = model::Json::array();
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (spec.min_bytes >= spec.max_bytes) {
        note(ctx, {}, "not cross-checked: the near step lies past 1.5 x the API size");
        return;
      }
      r = search_size(ctx, spec);
      if (!r.established || !r.evidence.contains("transition")) break;
      const auto& t = r.evidence["transition"];
      near_step = t.value("latencyBefore", 0.0) < near_bound;
      if (!near_step) break;
      skipped.push_back(t);
      spec.min_bytes = round_up(static_cast<std::uint64_t>(t.value("firstAfter", 0.0)), spec.step);
    }
    model::Json e = r.evidence;
    e["batches"] = r.batches;
    e["strideBytes"] = stride;
    e["farLevelLatency"] = far_level;
    if (!skipped.empty()) e["skippedNearSteps"] = skipped;
    if (!weaker.empty()) e["weakerInputs"] = join(weaker);
    if (!r.established) {
      note(ctx, e, "not cross-checked: no DRAM step found (" + r.reason + ")");
      return;
    }
    if (near_step) {
      note(ctx, e, "not cross-checked: every step found starts at the near level");
      return;
    }
    // Where several far segments share the evicted lines unevenly, misses set in before the
    // whole L2 is used: the transition from its onset to the first point past it is the measured
    // capacity range.
    double end = r.hi;
    if (r.evidence.contains("transition"))
      end = std::max(end, r.evidence["transition"].value("firstAfter", r.hi));
    e["dramStepBytes"] = r.value;
    e["dramStepInterval"] = {r.lo, r.hi};
    e["dramTransitionEnd"] = end;
    e["dramStepConfidence"] = r.confidence;
    finish(ctx, e, {r.value, end}, api, r.confidence);
  }

 private:
  // Not measured: the capacity is not available, with why.
  static void note(Context& ctx, model::Json evidence, const std::string& why) {
    auto a = model::Attribute::unavailable(model::Source::Measured, "B", why);
    a.evidence = std::move(evidence);
    ctx.put("l2", keys::capacity, a);
  }

  // The capacity is the step's onset, its interval the transition; the API size agrees when it
  // lies in the interval, give or take 10 %.
  static void finish(Context& ctx, model::Json evidence, model::Interval step, double api,
                     double confidence) {
    double d = 0;
    if (api < step.lo) d = (step.lo - api) / api;
    if (api > step.hi) d = (api - step.hi) / api;
    evidence["apiBytes"] = api;
    evidence["relativeDifference"] = d;
    evidence["agrees"] = d <= kAgree;
    evidence["crossCheck"] =
        d <= kAgree ? "confirmed: one SM hits in L2 up to the DRAM step"
                    : "the DRAM step one SM sees differs from the API size by more than 10 %";
    if (d > kAgree)
      ctx.warn("l2: the measured L2 capacity (" + std::to_string(static_cast<long long>(step.lo)) +
               " B) differs from the API size by " + std::to_string(static_cast<int>(d * 100)) +
               " %");
    auto a = model::Attribute::measured(
        step.lo, "B",
        "pchase-size-sweep at line stride past the near step: the L2 capacity one SM reaches",
        confidence);
    a.interval = step;
    a.evidence = std::move(evidence);
    ctx.put("l2", keys::capacity, a);
  }
};

}  // namespace

// Far->DRAM step by a size search at line stride -> the L2 capacity one SM reaches, as the
// cross-check of the API size.
GPUTOPO_REGISTER_PROBE(Family::L2, 40, Made::Once,
                       [](const Site&) { return std::make_unique<L2CapacityProbe>(); });

}  // namespace gputopo::discovery
