#include <algorithm>
#include <cmath>

#include "analysis/cluster.hpp"
#include "analysis/segment_count.hpp"
#include "analysis/summary.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

constexpr int kMaxSegments = 16;

// The near->far step on one SM, profiled at half the search step around the search's onset
// (locate_step in l2_sweep.hpp says how it is read).
// Where the measured near-partition step lies: the profile's bracket widened by its resolution
// (its sizes lie half a search step apart); without a profile, between the last size that fit
// and the first that missed.
model::Interval step_interval(const StepProfile& profile, const SizeSearchResult& r,
                              const SizeSearchSpec& spec, double measured, double widen = 1) {
  const model::Interval step = profile.found
                                   ? model::Interval{profile.lo, profile.hi}
                                   : model::Interval{r.lo, r.lo + static_cast<double>(spec.step)};
  const double resolution = profile.found ? widen * static_cast<double>(spec.step) / 2 : 0.0;
  return {std::min(step.lo, measured) - resolution, std::max(step.hi, measured) + resolution};
}

StepProfile profile_step(Context& ctx, const SizeSearchSpec& spec, double onset, int sm) {
  const StepProfile none;
  const std::uint64_t half =
      std::max<std::uint64_t>(spec.stride, round_up(spec.step / 2, spec.stride));
  const double step = static_cast<double>(spec.step);
  std::vector<double> x;
  std::vector<std::vector<double>> samples;
  // Appends the sizes of (after, to] at half steps, measured on `sm` in one batch.
  auto measure = [&](double after, double to) {
    device::ChaseBatch batch;
    std::vector<double> added;
    for (std::uint64_t b = round_up(static_cast<std::uint64_t>(after) + 1, half);
         static_cast<double>(b) <= to && b <= spec.max_bytes; b += half) {
      batch.requests.push_back(
          chase_request(spec.space, b, spec.stride, 1, spec.max_recorded_loads, 1024));
      batch.requests.back().sm = sm;
      added.push_back(static_cast<double>(b));
    }
    if (added.empty()) return false;
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    for (std::size_t i = 0; i < added.size() && i < result.results.size(); ++i) {
      x.push_back(added[i]);
      samples.push_back(latencies(result.results[i]));
    }
    return true;
  };
  measure(std::max(0.0, onset - step - 1), onset + 3 * step);
  if (x.size() < 3) return none;
  analysis::Clustering levels;
  std::vector<double> share;
  std::size_t near = 0;
  // Share per size of the loads above the near level (the first size's level), from the levels
  // of all sizes pooled.
  auto read_shares = [&]() {
    std::vector<double> pooled;
    for (const auto& v : samples) pooled.insert(pooled.end(), v.begin(), v.end());
    levels = analysis::cluster_levels(pooled);
    share.clear();
    if (samples.front().empty() || levels.levels.size() < 2) return false;
    near = levels.classify(analysis::summarize(samples.front()).median);
    if (near + 1 >= levels.levels.size()) return false;
    const double threshold = levels.boundaries[near];
    for (const auto& v : samples) {
      const auto above = std::count_if(v.begin(), v.end(), [&](double c) { return c > threshold; });
      share.push_back(v.empty() ? 0.0 : static_cast<double>(above) / static_cast<double>(v.size()));
    }
    return true;
  };
  // Two binomial standard errors of a share at the noisiest point.
  const double noise =
      2 * std::sqrt(0.25 / static_cast<double>(std::max<std::size_t>(samples.front().size(), 1)));
  bool read = read_shares();
  // Where the share still rises at the last sizes (a trickle of far hits before the bulk), the
  // profile goes on, twice at most.
  for (int extension = 0; extension < 2 && read && share.size() >= 4 &&
                          share.back() - share[share.size() - 4] > 2 * noise;
       ++extension) {
    if (!measure(x.back(), x.back() + 4 * step)) break;
    read = read_shares();
  }
  if (!read) return none;
  return locate_step(x, share, levels.levels[near].center, noise, sm);
}

// One SM sees its near segment first: a chase at fetch-granularity stride hits near up to one
// segment, then (on a segmented L2) far. The size search brackets that first step on one SM (the
// near latency differs between SMs, which a sweep spread over SMs reads as misses); a profile of
// the far share locates the step inside its transition; the step is then aligned to the nearest 1/n
// of the API size, as MT4G does, established only where its interval lies clearly nearer that
// fraction than its neighbour (analysis::fit_segment_count).
class L2SegmentProbe final : public Probe {
 public:
  L2SegmentProbe() : Probe("l2.segments", {"l2"}) {
    declare({{"l2", &keys::fetchGranularity}}, {{"l2", &keys::segmentSize},
                                                {"l2", &keys::measuredSegmentSize},
                                                {"l2", &keys::segmentCount}});
  }

  void run(Context& ctx) override {
    const double api = static_cast<double>(ctx.info().l2_bytes());
    auto fail = [&](const std::string& why, const model::Json& evidence = {}) {
      for (const model::Key* key :
           {&keys::segmentSize, &keys::measuredSegmentSize, &keys::segmentCount}) {
        auto a =
            model::Attribute::unavailable(model::Source::Measured, std::string(key->unit), why);
        a.evidence = evidence;
        ctx.put("l2", *key, a);
      }
    };
    if (api <= 0) return fail("the driver reports no L2 size to align a segment to");

    std::vector<std::string> weaker;
    const std::uint32_t fg = fetch_granularity_or(ctx, l2_target(), 32, weaker);
    SizeSearchSpec spec = l2_search_spec(ctx.info().l2_bytes(), fg);
    spec.min_bytes = std::max(spec.step, round_up(ctx.info().l2_bytes() / 64, spec.step));
    // A little past the API size, so that an unsegmented L2 shows its one step (to DRAM) here.
    spec.max_bytes = round_up(ctx.info().l2_bytes() + ctx.info().l2_bytes() / 4, spec.step);
    // At sector stride only the first load of each line leaves the near segment.
    spec.bracket_level_change = false;
    spec.confirm_sm = kLatencySm;
    const auto r = search_size(ctx, spec);
    if (!r.established) {
      fail(r.capped ? r.reason : "near-segment step not established: " + r.reason, r.evidence);
      return;
    }

    const auto profile = profile_step(ctx, spec, r.value, kLatencySm);
    put_findings(ctx, r, spec, profile, fg, join(weaker));
  }

 private:
  static void put_findings(Context& ctx, const SizeSearchResult& r, const SizeSearchSpec& spec,
                           const StepProfile& profile, std::uint32_t stride,
                           const std::string& weaker) {
    const double api = static_cast<double>(ctx.info().l2_bytes());
    const double measured = profile.found ? profile.onset : r.value;
    const model::Interval interval = step_interval(profile, r, spec, measured);
    const auto f =
        analysis::fit_segment_count(measured, {interval.lo, interval.hi}, api, kMaxSegments);
    const std::string later = later_step(profile, r);
    const double step_confidence = later.empty() ? r.confidence : 0.0;
    const double confidence = std::min(step_confidence, f.confidence);
    // Where only the separation keeps a trusted step from a count, the segment may be either
    // fraction the step lies between: the dependents size their arrays from both (segment_span in
    // l2_sweep.hpp).
    std::vector<int> counts{f.count};
    const bool between = later.empty() && r.confidence >= kEstablished &&
                         f.closeness >= kEstablished && f.separation < kEstablished;
    if (between && f.rival > 0) counts.push_back(f.rival);
    std::sort(counts.begin(), counts.end());
    const double largest = api / counts.front();
    const double smallest = api / counts.back();
    model::Json evidence = r.evidence;
    evidence["searchOnsetBytes"] = r.value;
    evidence["profile"] = profile.evidence;
    evidence["measuredBytes"] = measured;
    evidence["measuredInterval"] = {interval.lo, interval.hi};
    // Where the near level surely ends (the bracket before its resolution widening, or the largest
    // segment the count allows): l2.capacity searches past it.
    evidence["nearEndBytes"] = std::max(step_interval(profile, r, spec, measured, 0).hi, largest);
    if (profile.found) evidence["nearLevelLatency"] = profile.near_latency;
    evidence["batches"] = r.batches;
    evidence["strideBytes"] = stride;
    evidence["apiL2Bytes"] = api;
    evidence["fraction"] = "1/" + std::to_string(f.count);
    evidence["relativeDistance"] = f.relative_distance;
    evidence["fractionConfidence"] = f.confidence;
    evidence["fractionSeparation"] = f.separation;
    evidence["rivalFraction"] = f.rival > 0 ? model::Json("1/" + std::to_string(f.rival)) : nullptr;
    evidence["candidateCounts"] = counts;
    std::vector<std::string> reasons;
    if (!later.empty()) reasons.push_back(later);
    if (f.confidence < kEstablished && counts.size() > 1)
      reasons.push_back("the measured step does not tell 1/" + std::to_string(counts.front()) +
                        " from 1/" + std::to_string(counts.back()) +
                        " of the API size apart (fractionConfidence): neither count is "
                        "established");
    if (!weaker.empty()) reasons.push_back(weaker);
    const std::string reason = join(reasons);
    const std::string step_method =
        "pchase-size-sweep of the near->far step on one SM, located at the onset of the steepest "
        "rise of the share of loads above the near level";
    const std::string method = step_method + ", aligned to the nearest 1/n of the API L2 size";
    // The aligned value's interval spans the measured step and every fraction the count allows.
    auto segment = model::Attribute::measured(f.value, "B", method, confidence);
    segment.interval =
        model::Interval{std::min(interval.lo, smallest), std::max(interval.hi, largest)};
    segment.evidence = evidence;
    segment.reason = reason;
    ctx.put("l2", keys::segmentSize, segment);
    // The step as measured claims no more precision than its interval allows
    // (model::kSizePrecision).
    auto raw = model::Attribute::measured(
        measured, "B", step_method,
        step_confidence * model::precision_share(interval, measured, model::kSizePrecision));
    raw.interval = interval;
    raw.evidence = {{"searchOnsetBytes", r.value}, {"profiled", profile.found}};
    raw.reason = join(later.empty() || weaker.empty() ? std::vector<std::string>{later + weaker}
                                                      : std::vector<std::string>{later, weaker});
    ctx.put("l2", keys::measuredSegmentSize, raw);
    auto count = model::Attribute::measured(f.count, "", method, confidence);
    count.evidence = {{"measuredSegmentBytes", measured},
                      {"apiBytes", api},
                      {"relativeDistance", f.relative_distance},
                      {"fractionSeparation", f.separation},
                      {"candidateCounts", counts}};
    count.reason = reason;
    ctx.put("l2", keys::segmentCount, count);
  }
};

}  // namespace

// L2 size from the API; near->far step by a size search at fetch-granularity stride -> segment
// size aligned to the nearest 1/n of the API size, segment count n.
GPUTOPO_REGISTER_PROBE(Family::L2, 20, Made::Once,
                       [](const Site&) { return std::make_unique<L2SegmentProbe>(); });

}  // namespace gputopo::discovery
