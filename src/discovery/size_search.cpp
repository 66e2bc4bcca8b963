#include "discovery/size_search.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>

#include "analysis/changepoint.hpp"
#include "analysis/inference.hpp"
#include "analysis/parallel.hpp"
#include "analysis/rise.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

// Where the level in front still served more than this share of a size's loads, it held part of
// the array there, and this level saw only the rest.
constexpr double kMaskedShare = 0.02;

struct Sweep {
  std::vector<analysis::SweepPoint> points;
  std::vector<double> front_share;  // per point: the share of its loads the level in front served
  double front_held = 0;            // the largest size of which the front served over kMaskedShare
  device::RunConditions conditions;
};

// Every size is chased in `regions` places of device memory (request i * regions + k in region k),
// and each point pools their loads.
Sweep run_sweep(Context& ctx, const SizeSearchSpec& spec, const std::vector<std::uint64_t>& sizes,
                int sm = -1, std::uint32_t regions = 1) {
  device::ChaseBatch batch;
  batch.carveout_percent = spec.carveout;
  for (std::uint64_t s : sizes)
    for (std::uint32_t k = 0; k < regions; ++k) {
      // Small arrays are timed over several passes: just past capacity only a few loads of a pass
      // miss, fewer still under random replacement.
      auto r = chase_request(spec.space, s, spec.stride, 1, spec.max_recorded_loads, 1024);
      r.sm = placed_sm(sm, batch.requests.size(), ctx.info().sm_count());
      if (k > 0) r.region = k;
      batch.requests.push_back(r);
    }
  auto result = ctx.chase(batch);
  Sweep sweep;
  sweep.conditions = result.conditions;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::vector<double> pooled;
    std::size_t loads = 0;
    for (std::size_t k = 0; k < regions && i * regions + k < result.results.size(); ++k) {
      const auto samples = latencies(result.results[i * regions + k]);
      loads += samples.size();
      // Loads a level in front served say nothing of this level's capacity.
      std::copy_if(samples.begin(), samples.end(), std::back_inserter(pooled),
                   [&](double x) { return !(x < spec.served_in_front_below); });
    }
    const double front =
        loads ? 1.0 - static_cast<double>(pooled.size()) / static_cast<double>(loads) : 0.0;
    if (front > kMaskedShare) sweep.front_held = static_cast<double>(sizes[i]);
    if (pooled.empty()) continue;
    sweep.front_share.push_back(front);
    sweep.points.push_back({static_cast<double>(sizes[i]), pooled});
  }
  return sweep;
}

// The first change of the sweep. With `between_levels`, only a change whose plateaus sit at
// different latency levels of the pooled clustering counts: past capacity the doubling bracket
// leaves the hit level, while a rare outlier or jitter does not.
std::optional<analysis::ChangePoint> first_change(const Sweep& sweep, bool between_levels) {
  const auto reduced = analysis::reduce(sweep.points, analysis::Reduction::LevelFractions);
  const auto seg = analysis::segment(reduced);
  for (const auto& c : seg.changes) {
    if (!between_levels ||
        reduced.levels.classify(c.level_after) > reduced.levels.classify(c.level_before))
      return c;
  }
  return std::nullopt;
}

// The onset of lasting misses: the first point from which every point of the sweep has a miss
// fraction significantly above that of the sweep's first point (which fits), by the disturbance
// test with a Bonferroni-corrected level. Right past an LRU set-associative capacity only a few
// sets miss (a ramp rather than a step): this finds where the ramp starts, which a change-point
// split of the ramp does not. Sporadic earlier misses that come back to zero (hashed sets on
// Hopper, docs/cuda-backend.md) are kept as evidence (`first`) but do not end the plateau.
struct Departure {
  std::size_t index = 0;  // lasting onset
  std::size_t first = 0;  // first significant point of all
  double p_value = 1;
};

std::optional<Departure> first_departure(const Sweep& sweep) {
  const auto& pts = sweep.points;
  if (pts.size() < 2) return std::nullopt;
  analysis::DisturbanceOptions o;
  o.alpha = 0.01 / static_cast<double>(pts.size());
  std::vector<analysis::DisturbanceResult> tests(pts.size() - 1);
  analysis::parallel_for(tests.size(), [&](std::size_t i) {
    tests[i] = analysis::disturbance_test(pts.front().samples, pts[i + 1].samples, o);
  });
  if (!tests.back().disturbed) return std::nullopt;
  std::size_t onset = tests.size() - 1;
  while (onset > 0 && tests[onset - 1].disturbed) --onset;
  std::size_t first = onset;
  for (std::size_t i = 0; i < onset; ++i)
    if (tests[i].disturbed) {
      first = i;
      break;
    }
  return Departure{onset + 1, first + 1,
                   std::min(1.0, tests[onset].p_value * static_cast<double>(pts.size()))};
}

model::Json change_json(const analysis::ChangePoint& c) {
  return {{"x", c.x},
          {"lastBefore", c.x_lo},
          {"firstAfter", c.x_hi},
          {"pValue", c.p_value},
          {"confidence", c.confidence},
          {"latencyBefore", c.level_before},
          {"latencyAfter", c.level_after}};
}

// [from, to] within the spec's sizes, into lo and hi.
void set_range(const SizeSearchSpec& spec, double from, double to, double& lo, double& hi) {
  lo = std::max(static_cast<double>(spec.min_bytes), from);
  hi = std::min(static_cast<double>(spec.max_bytes), to);
}

// Rounds of ever finer sweeps of [lo, hi] (one batch each; all on `sm` when >= 0) that keep
// the first departure, until the step is the finest; widens where a round sees none.
void narrow(Context& ctx, const SizeSearchSpec& spec, int sm, double& lo, double& hi,
            double& confidence, std::uint64_t& last_step, SizeSearchResult& out) {
  const std::uint64_t step = std::max<std::uint64_t>(spec.step, 1);
  const std::size_t per_batch = std::max<std::size_t>(spec.points_per_batch, 3);
  int widenings = 0;
  for (int round = 0; round < 10 && last_step > step; ++round) {
    const auto span = static_cast<std::uint64_t>(hi - lo);
    const std::uint64_t round_step =
        std::max(step, round_up((span + per_batch - 2) / (per_batch - 1), step));
    std::vector<std::uint64_t> pts;
    for (std::uint64_t s = std::max(static_cast<std::uint64_t>(lo) / step * step, step);
         s <= spec.max_bytes && s <= static_cast<std::uint64_t>(hi) + round_step &&
         pts.size() < per_batch + 1;
         s += round_step)
      pts.push_back(s);
    ctx.expect_batches(1);
    const Sweep sweep = run_sweep(ctx, spec, pts, sm);
    ++out.batches;
    out.conditions = sweep.conditions;
    const auto departure = first_departure(sweep);
    model::Json round_json = {{"from", pts.front()},
                              {"to", pts.back()},
                              {"stepBytes", round_step},
                              {"points", pts.size()},
                              {"sm", sm}};
    if (departure) {
      round_json["firstMissing"] = pts[departure->index];
      round_json["firstAnyMisses"] = pts[departure->first];
      round_json["pValue"] = departure->p_value;
    }
    out.evidence["rounds"].push_back(round_json);
    if (!departure) {
      // No departure inside the bracket: widen it and repeat, twice at most.
      if (++widenings > 2) break;
      set_range(spec, lo - (hi - lo), hi + (hi - lo), lo, hi);
      continue;
    }
    last_step = round_step;
    lo = static_cast<double>(pts[departure->index - 1]);
    hi = static_cast<double>(pts[departure->index]);
    confidence = std::min(confidence, 1.0 - departure->p_value);
  }
}

// Miss fraction and loads per point of a sweep.
struct MissProfile {
  std::vector<double> x, fraction, loads;
};
MissProfile miss_profile(const Sweep& sweep, const analysis::Clustering& levels) {
  MissProfile m;
  for (const auto& p : sweep.points) {
    m.x.push_back(p.x);
    m.loads.push_back(static_cast<double>(p.samples.size()));
  }
  m.fraction.resize(sweep.points.size());
  analysis::parallel_for(sweep.points.size(), [&](std::size_t i) {
    m.fraction[i] = analysis::miss_fraction(sweep.points[i].samples, levels);
  });
  return m;
}

// A round's rise as evidence: its fit, and where lasting misses start.
void add_rise_evidence(model::Json& round, const analysis::Rise& rise, double first_lasting,
                       double scale) {
  round["onsetSd"] = rise.onset_sd;
  if (scale > 0) round["slopeScaleBytes"] = scale;
  round["riseEnd"] = rise.rise_end;
  round["firstLastingMisses"] = first_lasting;
  round["missBefore"] = rise.base;
  round["missAfter"] = rise.top;
  round["slopePerKiB"] = rise.slope * 1024;
  round["sharpness"] = rise.sharpness;
  round["pValue"] = rise.p_value;
}

// The result after a round with a rise: `onset`, the interval where a repeat of the rounds would
// put it (its standard deviation over the rounds, `onset_sd`, times 1.96 √2; at least two steps:
// a fit's knot on a grid lies within a step of the change, and the onset is rounded to the grid),
// and the confidence from the first round's rise and the agreement of this onset with the
// previous one (`moved`: how far it moved from it). Lasting misses that start far below the onset
// (sets that overflow early under a hashed index) stay in each round's evidence: they say where
// the first lines are lost, not where a repeat run would put the capacity.
void settle(SizeSearchResult& out, double onset, std::optional<double> moved, double previous_step,
            double onset_sd, const analysis::Rise& first, double stepd) {
  double agreement = 1;
  // A knot on a grid of step h is uncertain by about h on either side.
  if (moved && *moved > 2 * previous_step) agreement = 2 * previous_step / *moved;
  out.established = true;
  out.value = onset;
  const double half = std::max(2 * stepd, 1.96 * std::sqrt(2.0) * onset_sd);
  out.lo = onset - half;
  out.hi = onset + half;
  out.confidence = (1 - first.p_value) * agreement * (1 + first.sharpness) / 2;
  out.evidence["missBefore"] = first.base;
  out.evidence["missAfter"] = first.top;
  out.evidence["sharpness"] = first.sharpness;
  out.evidence["roundAgreement"] = agreement;
}

// Established when some round saw a rise and the confidence reached kEstablished.
void conclude(SizeSearchResult& out, bool rose) {
  if (!rose) {
    out.established = false;
    out.reason = "no rise of the miss fraction in the bracket";
    return;
  }
  out.established = out.confidence >= kEstablished;
  if (!out.established)
    out.reason =
        "capacity change found but weak (confidence " + std::to_string(out.confidence) + ")";
}

// The largest share of loads the level in front served at the points up to `reach` past `x`: where
// it held part of the array below the onset, this level saw only the rest there.
double share_below(const Sweep& sweep, double x, double reach) {
  double share = 0;
  for (std::size_t i = 0; i < sweep.points.size() && i < sweep.front_share.size(); ++i)
    if (sweep.points[i].x <= x + reach) share = std::max(share, sweep.front_share[i]);
  return share;
}

// A level that holds fewer lines than the level in front at the search's stride (a small constant
// L1.5 behind a constant L1 of more lines) is hidden while the front holds the array, and shows
// its misses late, where the front stops serving: the capacity may lie anywhere from the lowest
// size swept up to the onset, and the onset is not established.
void masked_by_front(SizeSearchResult& out, double front_share, double lowest) {
  out.lo = std::min(out.lo, lowest);
  out.confidence = std::min(out.confidence, 0.25);
  out.established = false;
  out.reason = "the level in front served " + std::to_string(static_cast<int>(front_share * 100)) +
               " % of the loads below the onset: it held part of the array there, so this " +
               "level's misses may show late";
  out.evidence["frontServedShare"] = front_share;
}

// A round's sizes: [lo, hi] on the spec's step grid in at most points_per_batch steps of
// `round_step` (empty where the range holds none).
std::vector<std::uint64_t> round_sizes(const SizeSearchSpec& spec, double lo, double hi,
                                       std::uint64_t& round_step) {
  const std::uint64_t step = std::max<std::uint64_t>(spec.step, 1);
  const std::size_t per_batch = std::max<std::size_t>(spec.points_per_batch, 3);
  const auto from = std::max(static_cast<std::uint64_t>(lo) / step * step, step);
  const auto last = std::min(round_up(static_cast<std::uint64_t>(hi), step), spec.max_bytes);
  if (last <= from) return {};
  round_step = std::max(step, round_up((last - from + per_batch - 2) / (per_batch - 1), step));
  std::vector<std::uint64_t> pts;
  for (std::uint64_t s = from; s <= last; s += round_step) pts.push_back(s);
  return pts;
}

// The steepest-rise rounds: each sweeps [lo, hi] with points_per_batch sizes on `sm`, reads the
// miss fraction of every size against the bracket's pooled levels (one clustering, so that a
// round that is all hits or all misses is still read right), and finds the steepest rise of its
// isotonic fit. The first round sees the whole transition and compares the slopes of the fit's
// pieces. Each later round zooms on the onset (three steps of the round before on either side)
// and compares slopes over one step of the round before, the scale at which that round saw the
// knee: a rise shorter than that step (a random-replacement curve's jumps a few lines wide) does
// not outweigh the knee. A zoomed round's onset and the previous one are averaged by their
// precision (each uncertain by its spread over the fits it averages and by its grid, step²/12),
// the zoomed one's weight also scaled by the evidence that it saw a rise at all (1 - p of its rise
// over that step): no single significance level decides between two readings, and a fine round
// whose knee the data cannot place (random replacement swept line by line) moves the onset
// little. The rounds stop once the step is the finest or a later round no longer halves it.
// Confidence: (1 - p of the first round's rise) x agreement of the last two onsets (within two of
// the coarser round's steps: 1) x (1 + sharpness of the first round) / 2.
void steepest_rise_rounds(Context& ctx, const SizeSearchSpec& spec,
                          const analysis::Clustering& levels, double lo, double hi,
                          SizeSearchResult& out) {
  const std::uint64_t step = std::max<std::uint64_t>(spec.step, 1);
  const auto stepd = static_cast<double>(step);
  const int sm = spec.confirm_sm;
  std::optional<double> previous_onset;
  double previous_step = 0;
  double previous_variance = 0;         // of previous_onset
  std::optional<analysis::Rise> first;  // the first round with a rise
  double front_share = 0;               // the most of any round with a rise, below its onset
  const double lowest = lo;             // where the first round starts
  int widenings = 0;
  for (int round = 0; round < 8; ++round) {
    std::uint64_t round_step = 0;
    const std::vector<std::uint64_t> pts = round_sizes(spec, lo, hi, round_step);
    if (pts.empty()) break;
    if (round > 1 && previous_onset && 2 * static_cast<double>(round_step) > previous_step &&
        widenings == 0)
      break;  // resolved: zooming in no longer halves the step
    ctx.expect_batches(1);
    const Sweep sweep = run_sweep(ctx, spec, pts, sm, std::max<std::uint32_t>(spec.regions, 1));
    ++out.batches;
    out.conditions = sweep.conditions;
    const MissProfile profile = miss_profile(sweep, levels);
    const auto& x = profile.x;
    const double scale = previous_onset ? previous_step : 0.0;
    const auto rise = analysis::steepest_rise(x, profile.fraction, profile.loads, scale);
    model::Json round_json = {{"from", pts.front()},      {"to", pts.back()},
                              {"stepBytes", round_step},  {"points", pts.size()},
                              {"sm", placement_json(sm)}, {"rise", rise.found}};
    if (!rise.found) {
      out.evidence["rounds"].push_back(round_json);
      if (++widenings > 2) break;
      set_range(spec, lo - (hi - lo), hi + (hi - lo), lo, hi);
      continue;
    }
    widenings = 0;
    // The capacity is never below the last size without lasting misses.
    const double zoomed = std::max(rise.onset, x[rise.first_rise - 1]);
    // The round's onset is uncertain by its spread over the fits it averages and by its grid.
    const double variance =
        rise.onset_sd * rise.onset_sd + static_cast<double>(round_step * round_step) / 12.0;
    const double weight =
        previous_onset ? (1 - rise.p_value) * previous_variance / (previous_variance + variance)
                       : 1.0;
    const double combined =
        previous_onset ? weight * zoomed + (1 - weight) * *previous_onset : zoomed;
    const double onset = std::round(combined / stepd) * stepd;
    if (!first) first = rise;
    const double share = share_below(sweep, onset, 2 * static_cast<double>(round_step));
    front_share = std::max(front_share, share);
    add_rise_evidence(round_json, rise, x[rise.first_rise], scale);
    round_json.update({{"frontServedShare", share},
                       {"roundOnset", zoomed},
                       {"onsetUncertaintyBytes", std::sqrt(variance)},
                       {"weight", weight},
                       {"onset", onset}});
    out.evidence["rounds"].push_back(round_json);
    const std::optional<double> moved =
        previous_onset ? std::optional(std::abs(onset - *previous_onset)) : std::nullopt;
    previous_variance = previous_onset ? weight * weight * variance +
                                             (1 - weight) * (1 - weight) * previous_variance
                                       : variance;
    settle(out, onset, moved, previous_step, std::sqrt(previous_variance), *first, stepd);
    previous_onset = onset;
    previous_step = static_cast<double>(round_step);
    if (round_step <= step) break;
    // Zoom on the onset: two of this round's steps on either side hold the knee wherever in its
    // cell the coarser grid saw it, one more gives the slopes over a step on either side of it,
    // and little of the rest of the rise is swept. (Sweeping the whole rise finer resolves Hopper's
    // dips and second jumps 15-20 KiB past the knee, which then compete with the knee for the
    // sharpest increase of slope.)
    const double reach = 3 * static_cast<double>(round_step);
    set_range(spec, onset - reach, onset + reach, lo, hi);
  }
  conclude(out, previous_onset.has_value());
  if (previous_onset && front_share > kMaskedShare) masked_by_front(out, front_share, lowest);
}

// The steepest-rise estimator after the bracket: rounds of sweeps around its change.
void steepest_rise_search(Context& ctx, const SizeSearchSpec& spec, const Sweep& sweep,
                          const std::vector<std::uint64_t>& sizes,
                          const analysis::ChangePoint& change, SizeSearchResult& out) {
  // The rounds start one bracket point below the last fitting one and end one past the first
  // missing one: the bracket's own change may sit inside a shallow ramp of early misses.
  double lo = change.x_lo, hi = change.x;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (static_cast<double>(sizes[i]) == change.x_lo && i > 0)
      lo = static_cast<double>(sizes[i - 1]);
    if (static_cast<double>(sizes[i]) == change.x && i + 1 < sizes.size())
      hi = static_cast<double>(sizes[i + 1]);
  }
  out.evidence["method"] =
      std::string(
          "doubling bracket, then the steepest rise of the isotonic "
          "miss-fraction fit, ") +
      (spec.confirm_sm == kSmsInTurn ? "each size's places on SMs in turn" : "on one SM");
  out.evidence["transition"] = change_json(change);
  const auto levels = analysis::reduce(sweep.points, analysis::Reduction::MissFraction).levels;
  steepest_rise_rounds(ctx, spec, levels, lo, hi, out);
}

}  // namespace

SizeSearchResult search_size(Context& ctx, const SizeSearchSpec& spec) {
  SizeSearchResult out;
  out.evidence = {{"method", "doubling bracket, then one point per SM at finer steps"},
                  {"strideBytes", spec.stride},
                  {"rounds", model::Json::array()}};
  const std::uint64_t step = std::max<std::uint64_t>(spec.step, 1);

  // Bracket: doubling sizes, all in one batch.
  std::vector<std::uint64_t> sizes;
  const double growth = std::max(spec.bracket_growth, 1.05);
  for (std::uint64_t s = round_up(spec.min_bytes, step); s < spec.max_bytes;
       s = std::max(s + step,
                    round_up(static_cast<std::uint64_t>(static_cast<double>(s) * growth), step)))
    sizes.push_back(s);
  sizes.push_back(spec.max_bytes);
  ctx.expect_batches(3);
  Sweep sweep = run_sweep(ctx, spec, sizes);
  ++out.batches;
  out.conditions = sweep.conditions;
  auto change = first_change(sweep, spec.bracket_level_change);
  out.evidence["rounds"].push_back({{"from", sizes.front()},
                                    {"to", sizes.back()},
                                    {"points", sizes.size()},
                                    {"change", change ? change_json(*change) : model::Json()}});
  if (!change) {
    out.reason = "no capacity change between " + std::to_string(sizes.front()) + " and " +
                 std::to_string(spec.max_bytes) + " B";
    if (sweep.front_held > 0) {
      // The front held the array up to there: a smaller level behind it would not show.
      out.reason += ", but the level in front held part of the array up to " +
                    std::to_string(static_cast<std::uint64_t>(sweep.front_held)) +
                    " B and may hide a smaller capacity";
      out.evidence["frontHeldUpTo"] = sweep.front_held;
      return out;
    }
    out.capped = true;
    out.lo = static_cast<double>(spec.max_bytes);
    return out;
  }

  // The capacity lies between the last point of the hit plateau and the first point that left
  // it; how far the transition reaches beyond does not matter for the capacity and is evidence.
  // Each round sweeps that bracket with one point per SM and keeps the first departure.
  if (spec.estimator == SizeSearchSpec::Estimator::SteepestRise) {
    steepest_rise_search(ctx, spec, sweep, sizes, *change, out);
    return out;
  }

  double lo = change->x_lo;
  double hi = change->x;
  double confidence = change->confidence;
  std::uint64_t last_step = static_cast<std::uint64_t>(hi - lo);
  narrow(ctx, spec, -1, lo, hi, confidence, last_step, out);
  if (spec.confirm_sm >= 0) {
    // The onset on one SM alone, between the batched onset and the bracket's first miss.
    // The reference point must fit: start a tenth below the batched onset, which may already
    // sit on the first misses of a cache with random replacement.
    const double batched = lo;
    lo = static_cast<double>(round_up(static_cast<std::uint64_t>(batched * 0.9), step));
    hi = change->x;
    last_step = static_cast<std::uint64_t>(hi - lo);
    narrow(ctx, spec, spec.confirm_sm, lo, hi, confidence, last_step, out);
    out.evidence["batchedOnset"] = batched;
    out.evidence["confirmedOnSm"] = spec.confirm_sm;
  }

  out.value = lo;
  out.lo = lo;
  out.hi = std::max(lo, hi - static_cast<double>(step));
  out.confidence = last_step <= step ? confidence : confidence * 0.75;
  out.established = out.confidence >= kEstablished;
  out.evidence["transition"] = change_json(*change);
  if (last_step > step) out.reason = "located to " + std::to_string(last_step) + " B only";
  if (!out.established)
    out.reason =
        "capacity change found but weak (confidence " + std::to_string(out.confidence) + ")";
  return out;
}

SizeConfirmation confirm_size(Context& ctx, const SizeSearchSpec& spec, double expected) {
  constexpr int kHalfPoints = 6;
  constexpr double kStep = 0.02;
  const std::uint64_t step = std::max<std::uint64_t>(spec.step, 1);
  std::vector<std::uint64_t> pts;
  for (int j = -kHalfPoints; j <= kHalfPoints; ++j) {
    const auto s =
        std::clamp(round_up(static_cast<std::uint64_t>(expected * (1 + j * kStep)), step),
                   round_up(spec.min_bytes, step), spec.max_bytes);
    if (pts.empty() || s > pts.back()) pts.push_back(s);
  }
  SizeConfirmation out;
  out.evidence = {{"expected", expected},
                  {"from", pts.front()},
                  {"to", pts.back()},
                  {"points", pts.size()},
                  {"sm", placement_json(spec.confirm_sm)}};
  if (pts.size() < 3) {
    out.reason = "the space leaves fewer than 3 sizes around " + std::to_string(expected) + " B";
    return out;
  }
  ctx.expect_batches(1);
  const Sweep sweep =
      run_sweep(ctx, spec, pts, spec.confirm_sm, std::max<std::uint32_t>(spec.regions, 1));
  out.conditions = sweep.conditions;
  const auto levels = analysis::reduce(sweep.points, analysis::Reduction::MissFraction).levels;
  const MissProfile profile = miss_profile(sweep, levels);
  const auto rise = analysis::steepest_rise(profile.x, profile.fraction, profile.loads, 0.0);
  model::Json miss = model::Json::array();
  for (std::size_t i = 0; i < profile.x.size(); ++i)
    miss.push_back({profile.x[i], std::round(profile.fraction[i] * 1000) / 1000});
  out.evidence["missFraction"] = miss;
  if (!rise.found) {
    out.reason = "no rise of the miss fraction around " + std::to_string(expected) + " B";
    return out;
  }
  out.onset = rise.onset;
  out.p_value = rise.p_value;
  out.evidence["onset"] = rise.onset;
  out.evidence["pValue"] = rise.p_value;
  const double tolerance = 3 * kStep * expected;
  out.confirmed = rise.p_value < 0.01 && std::abs(rise.onset - expected) <= tolerance;
  if (!out.confirmed)
    out.reason = "this view's rise (at " + std::to_string(rise.onset) + " B, p " +
                 std::to_string(rise.p_value) + ") does not confirm " + std::to_string(expected) +
                 " B";
  return out;
}

}  // namespace gputopo::discovery
