#include "discovery/probes/geometry/random_draws.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_set>
#include <vector>

#include "analysis/set_occupancy.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/geometry/all_miss_count.hpp"
#include "discovery/probes/geometry/line_chase.hpp"

namespace gputopo::discovery {
// Named, not anonymous: a unity build joins this file with the set-geometry probe's.
namespace drawn {

// Line counts from half to three halves of the capacity in sixteenths, two draws each, from a
// region of up to kRegionCapacities capacities (at least kLeastRegion): binomial occupancy holds
// where the region dwarfs the draw. (Below half the capacity, the sets a carve-out took a way from
// weigh most: on an H200 the draws from a quarter on read 3 ways in one view of six.)
constexpr std::uint64_t kSteps = 16;
constexpr std::uint64_t kFirstStep = 8;
constexpr std::uint64_t kLastStep = 24;
constexpr std::uint64_t kDrawsPerCount = 2;
constexpr std::uint64_t kRegionCapacities = 64;
constexpr std::uint64_t kLeastRegion = 16;
constexpr int kMostWays = 64;
// The set count of the all-miss point and of the draws' fit may differ by this share (the draws
// read fewer where a carve-out took ways from some sets: 3 % on an H200) before they disagree.
constexpr double kMostSetsDisagreement = 0.1;
// The misfit an LRU or FIFO set-associative cache leaves (draw-to-draw scatter of the shares
// reaches 0.02-0.04 for a few hundred sets), and the posterior the way count needs.
constexpr double kMostMisfit = 0.05;
constexpr double kLeastPosterior = 0.9;

// The drawn lines: line 0 (where the chase starts) and n - 1 others of the region, in a random
// order.
device::ChaseRequest draw_request(const DrawSite& s, std::uint64_t n, std::uint64_t region,
                                  std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> lines{0};
  std::unordered_set<std::uint64_t> taken{0};
  while (lines.size() < n)
    if (const std::uint64_t l = rng() % region; taken.insert(l).second) lines.push_back(l);
  shuffle_after_first(lines, rng);
  return lines_request(*s.target, s.line_bytes, lines, region);
}

// Why random draws cannot run on this cache, or "".
std::string not_drawable(const DrawSite& s, std::uint64_t region) {
  if (s.target->level > 1) return "a cache behind another: its misses mix both caches'";
  if (kLinePasses * s.capacity_lines * kLastStep / kSteps > device::kMaxSequence)
    return fmt::format("{} lines are more than one chase sequence lists", s.capacity_lines);
  if (s.line_bytes < kLinePasses * kLineElementBytes)
    return "lines too short for one element a pass";
  if (region < kLeastRegion * s.capacity_lines)
    return fmt::format("the space holds {} lines, under {} capacities", region, kLeastRegion);
  return "";
}

model::Json fits_json(const analysis::SetOccupancy& fit) {
  model::Json j = model::Json::array();
  auto fits = fit.per_ways;
  std::sort(fits.begin(), fits.end(), [](const auto& a, const auto& b) { return a.chi2 < b.chi2; });
  fits.resize(std::min<std::size_t>(fits.size(), 5));
  for (const auto& f : fits)
    j.push_back({{"ways", f.ways}, {"sets", std::round(f.sets * 10) / 10}, {"chi2", f.chi2}});
  return j;
}

// Times the draws in one batch; the last pass's miss share of each, `counts` its lines and
// `seen` [lines, misses] for the evidence.
std::vector<analysis::Draw> drawn_shares(Context& ctx, const DrawSite& s, std::uint64_t region,
                                         std::vector<std::uint64_t>& counts, model::Json& seen) {
  device::ChaseBatch batch;
  batch.carveout_percent = carveout_for(ctx, *s.target);
  for (std::uint64_t k = kFirstStep; k <= kLastStep; ++k)
    for (std::uint64_t d = 0; d < kDrawsPerCount; ++d) {
      const std::uint64_t n = std::max<std::uint64_t>(2, s.capacity_lines * k / kSteps);
      counts.push_back(n);
      batch.requests.push_back(draw_request(s, n, region, k * kDrawsPerCount + d + 1));
    }
  ctx.expect_batches(1);
  const auto result = ctx.chase(batch);
  record_carveout(ctx, *s.target, result.conditions);
  std::vector<analysis::Draw> draws;
  for (std::size_t i = 0; i < counts.size() && i < result.results.size(); ++i) {
    const double share = last_pass_miss_share(result.results[i], counts[i], *s.classifier);
    if (share < 0) continue;
    draws.push_back({static_cast<double>(counts[i]), share});
    seen.push_back({counts[i], std::round(share * static_cast<double>(counts[i]))});
  }
  return draws;
}

// The sets: from the all-miss point where it agrees with the draws' fit, else the fit's.
double put_sets(Context& ctx, const DrawSite& s, const analysis::SetOccupancy& fit,
                model::Json evidence, const std::string& draws_method, double confidence) {
  const int w = fit.best.ways;
  const auto guess = static_cast<std::uint64_t>(std::llround(fit.best.sets * (w + 1)));
  AllMissCount all;  // {0, 0}: none found
  try {
    all = all_miss_count(ctx, s, w, guess).value_or(AllMissCount{});
  } catch (const device::Error& err) {
    if (err.kind() != device::Error::Kind::BadRequest) throw;
  }
  evidence["setsFromDraws"] = std::round(fit.best.sets * 10) / 10;
  evidence["setsFromDrawsInterval"] = {fit.sets_lo, fit.sets_hi};
  const double per = w + 1.0;
  const double at = static_cast<double>(all.all) / per;
  model::Attribute sets;
  if (all.all > 0 && std::abs(at - fit.best.sets) <= kMostSetsDisagreement * fit.best.sets) {
    evidence["allMissLines"] = {all.not_all, all.all};
    sets = model::Attribute::measured(
        std::round(at), "",
        fmt::format("consecutive lines: the fewest whose last pass misses entirely ({} of them) "
                    "hold ways + 1 = {} in every set, for an index that spreads consecutive "
                    "lines evenly; the ways from random lines",
                    all.all, w + 1),
        confidence);
    // The count lies in (not_all, all]; a line either way of an even spread widens it.
    sets.interval =
        model::Interval{std::floor(static_cast<double>(all.not_all) / per), std::ceil(at)};
  } else {
    sets = model::Attribute::measured(std::round(fit.best.sets), "", draws_method, confidence);
    sets.interval = model::Interval{std::floor(fit.sets_lo), std::ceil(fit.sets_hi)};
    sets.reason =
        all.all > 0 ? fmt::format("the all-miss point ({} lines) disagrees with the draws", all.all)
                    : "no all-miss point near the draws' fit: the draws read fewer sets where "
                      "some hold fewer ways";
  }
  sets.evidence = std::move(evidence);
  const double value = sets.value.get<double>();
  ctx.put(s.target->element, keys::sets, std::move(sets));
  return value;
}

}  // namespace drawn

std::optional<DrawnGeometry> put_drawn_ways_and_sets(Context& ctx, const DrawSite& s,
                                                     const std::string& strides_why) {
  using namespace drawn;
  const std::string& e = s.target->element;
  const auto put_unavailable = [&](const std::string& why, const model::Json& evidence) {
    for (const auto* k : {&keys::associativity, &keys::sets}) {
      auto a = model::Attribute::unavailable(
          model::Source::Measured, "",
          "ways and sets cannot be separated: " + strides_why + "; random draws: " + why);
      a.evidence = evidence;
      ctx.put(e, *k, std::move(a));
    }
    return std::nullopt;
  };
  const std::uint64_t region =
      std::min(s.largest_bytes / s.line_bytes, kRegionCapacities * s.capacity_lines);
  if (const std::string why = not_drawable(s, region); !why.empty())
    return put_unavailable(why, model::Json());

  std::vector<std::uint64_t> counts;
  model::Json seen = model::Json::array();
  std::vector<analysis::Draw> draws;
  try {
    draws = drawn_shares(ctx, s, region, counts, seen);
  } catch (const device::Error& err) {
    // A device that cannot run the draws (a recording made before them) leaves the rest standing.
    if (err.kind() != device::Error::Kind::BadRequest) throw;
    return put_unavailable(err.what(), model::Json());
  }
  model::Json evidence = {{"regionLines", region}, {"linesAndLastPassMisses", seen}};
  const auto fit =
      analysis::fit_set_occupancy(draws, static_cast<double>(s.capacity_lines), kMostWays);
  if (!fit) return put_unavailable("fewer than three draws came back", evidence);
  evidence["fits"] = fits_json(*fit);
  evidence["rmsMisfit"] = fit->rms;
  evidence["wayPosterior"] = fit->best_probability;
  if (fit->rms > kMostMisfit)
    return put_unavailable(
        fmt::format("the misses do not follow an LRU or FIFO set-associative cache's (misfit "
                    "{:.3f} of the lines, at most {} allowed)",
                    fit->rms, kMostMisfit),
        evidence);
  if (fit->best_probability < kLeastPosterior)
    return put_unavailable(
        fmt::format("{} and {} ways fit alike (the best {:.2f} likely): many ways of few sets",
                    fit->best.ways, fit->runner_up ? fit->runner_up->ways : 0,
                    fit->best_probability),
        evidence);

  const double confidence = std::min(0.9, fit->best_probability);
  const std::string method = fmt::format(
      "random lines: {} to {} lines drawn from {} ({} draws of each count), chased {} times; the "
      "share missing in the last pass fitted by P(Binomial(n - 1, 1 / sets) >= ways), the share "
      "of lines whose set holds more than its ways (LRU or FIFO, any index that spreads the "
      "region evenly)",
      counts.front(), counts.back(), region, kDrawsPerCount, kLinePasses);
  auto ways = model::Attribute::measured(fit->best.ways, "", method, confidence);
  ways.no_interval = "a discrete value picked among way counts by their fits";
  ways.evidence = evidence;
  ctx.put(e, keys::associativity, ways);
  return DrawnGeometry{fit->best.ways,
                       drawn::put_sets(ctx, s, *fit, std::move(evidence), method, confidence)};
}

}  // namespace gputopo::discovery
