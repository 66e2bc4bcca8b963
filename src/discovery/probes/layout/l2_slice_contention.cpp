#include "discovery/probes/layout/l2_slice_contention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "analysis/profile_groups.hpp"
#include "discovery/probes/layout/l2_slice_map.hpp"
#include "model/keys.hpp"

namespace gputopo::discovery::slice_contention {
namespace {

// Rounds to each line a warp (about 40 us a line on an H200), and the representatives timed with
// a line at once.
constexpr std::uint32_t kReductionRounds = 8;
constexpr int kContentionGroup = 8;
// The count stands where fewer than kMostUnseen classes are expected to have gone unseen, and the
// verdicts lie this many of the reference's own spreads (the median over its timings, at least
// kLeastSpread) from the threshold.
constexpr double kMostUnseen = 0.5;
constexpr double kLeastSpread = 0.01;
constexpr double kVerdictMargin = 2;
constexpr double kMaxMisfitShare = 0.01;
// Lines are classed again, twice as many, while kMostUnseen classes may have gone unseen, up to
// this many; the buffer holds them all from the start, so every call reaches the same memory.
constexpr int kMostLines = 4096;
// Passes over the representatives a timed SM makes; a cell is their median.
constexpr std::uint32_t kMapPasses = 4;

std::uint64_t span_bytes(std::uint64_t line_bytes) { return kMostLines * line_bytes + 128; }

// Line-index bits as address bits.
std::vector<int> address_bits(std::vector<int> bits, std::uint64_t line_bytes) {
  for (int& b : bits) b += std::countr_zero(line_bytes);
  return bits;
}

// How far the worst verdicts lie from sqrt(2) t1, in the reference's own spreads (log scale).
double verdict_margin(const analysis::ContentionClasses& c) {
  const double spread = std::max(c.reference_spread, kLeastSpread);
  return std::min(std::log(std::sqrt(2.0) / std::max(c.worst_distinct, 1e-9)),
                  std::log(c.worst_shared / std::sqrt(2.0))) /
         std::log1p(spread);
}

std::string unestablished(const analysis::ContentionClasses& c,
                          const analysis::UnseenClasses& unseen, double margin) {
  const auto count = c.sizes.size();
  if (count < 2)
    return fmt::format("reductions to any two of {} lines contend: one class", c.label.size());
  if (unseen.unseen > kMostUnseen)
    return fmt::format(
        "{} classes over {} units of lines, {} of them in one unit: about {:.1f} more classes "
        "may have gone unseen",
        count, unseen.units, unseen.once, unseen.unseen);
  return fmt::format(
      "{} classes, but the verdicts lie {:.1f} of the reference's spreads from the threshold "
      "(at least {} wanted)",
      count, margin, kVerdictMargin);
}

model::Json count_evidence(const analysis::ContentionClasses& c,
                           const analysis::UnseenClasses& unseen, std::uint64_t line_bytes) {
  const int count = static_cast<int>(c.sizes.size());
  const analysis::XorHash hash = analysis::solve_xor_hash(c.label, kMaxMisfitShare);
  model::Json e = {{"lineClass", slice_map::class_text(c.label, count)},
                   {"classSizes", c.sizes},
                   {"lineBytes", line_bytes},
                   {"referenceMicroseconds", std::round(c.reference_seconds * 1e7) / 10},
                   {"referenceSpread", c.reference_spread},
                   {"referenceTimings", c.reference_spreads.size()},
                   {"tests", c.tests},
                   {"worstDistinctRatio", c.worst_distinct},
                   {"worstSharedRatio", std::isfinite(c.worst_shared) ? c.worst_shared : 0.0},
                   {"lastNewClassAtLine", c.representative.back()},
                   {"units", unseen.units},
                   {"classesOfOneUnit", unseen.once},
                   {"classesOfTwoUnits", unseen.twice},
                   {"expectedUnseenClasses", unseen.unseen},
                   {"addressBitsThatMoveLines", address_bits(unseen.moving_bits, line_bytes)},
                   {"hashLinear", hash.linear}};
  if (hash.linear) e["hashMasks"] = slice_map::address_masks(hash, line_bytes);
  return e;
}

// One SM's reduction latency to each class, into the map's row: the median over the passes,
// and its 95 % half-width (1.96 x the passes' standard deviation / sqrt(passes)).
void add_row(slice_map::Map& map, const std::vector<double>& cycles, std::size_t classes) {
  map.mean.emplace_back();
  map.half.emplace_back();
  for (std::size_t k = 0; k < classes; ++k) {
    std::vector<double> v;
    for (std::size_t p = 0; p < kMapPasses; ++p) v.push_back(cycles.at(p * classes + k));
    std::sort(v.begin(), v.end());
    double mean = 0, var = 0;
    for (const double x : v) mean += x / static_cast<double>(v.size());
    for (const double x : v) var += (x - mean) * (x - mean) / static_cast<double>(v.size() - 1);
    map.mean.back().push_back(v[(v.size() - 1) / 2]);
    map.half.back().push_back(1.96 * std::sqrt(var / static_cast<double>(v.size())));
  }
}

}  // namespace

std::optional<analysis::ContentionClasses> classes(Context& ctx, int lines,
                                                   std::uint64_t line_bytes, std::string& why) {
  device::ReductionRequest r;
  r.span_bytes = span_bytes(line_bytes);
  r.rounds = kReductionRounds;
  const auto seconds = [&](const std::vector<int>& set) {
    r.line_offsets.clear();
    for (const int l : set) r.line_offsets.push_back(static_cast<std::uint64_t>(l) * line_bytes);
    return ctx.reductions(r).seconds;
  };
  try {
    auto c = analysis::contention_classes(lines, seconds, kContentionGroup);
    while (analysis::unseen_classes(c.label).unseen > kMostUnseen && c.label.size() < kMostLines)
      analysis::extend_classes(c, static_cast<int>(2 * c.label.size()), seconds, kContentionGroup);
    return c;
  } catch (const device::Error& e) {
    if (e.kind() != device::Error::Kind::BadRequest) throw;
    why = e.what();
    return std::nullopt;
  }
}

std::optional<double> put_count(Context& ctx, const analysis::ContentionClasses& c,
                                std::uint64_t line_bytes, const std::string& weaker) {
  const int count = static_cast<int>(c.sizes.size());
  const analysis::UnseenClasses unseen = analysis::unseen_classes(c.label);
  const double margin = verdict_margin(c);
  const std::string method = fmt::format(
      "reductions from every SM to sets of {} consecutive lines ({} to each line a warp): a slice "
      "serves reductions at a bounded rate, so a set takes one line's time where its lines lie "
      "on distinct slices and twice that where two share one; each line is timed with the "
      "classes' representatives, {} at a time, and halving finds its class (docs/methods.md, "
      "\"Contention classes\")",
      c.label.size(), kReductionRounds, kContentionGroup);
  std::optional<double> confidence;
  model::Attribute a;
  if (count < 2 || unseen.unseen > kMostUnseen || margin < kVerdictMargin) {
    a = model::Attribute::unavailable(model::Source::Measured, "",
                                      unestablished(c, unseen, margin));
  } else {
    confidence = std::exp(-unseen.unseen) * std::min(1.0, margin / (2 * kVerdictMargin));
    a = model::Attribute::measured(count, "", method, *confidence);
    a.interval = model::Interval{static_cast<double>(count), static_cast<double>(unseen.upper)};
    a.reason = weaker;
  }
  a.method = method;
  a.evidence = count_evidence(c, unseen, line_bytes);
  ctx.put("l2", keys::sliceCount, std::move(a));
  return confidence;
}

bool put_latency_map(Context& ctx, const analysis::ContentionClasses& c, std::uint64_t line_bytes,
                     const std::vector<int>& sms, double confidence) {
  const std::size_t classes = c.representative.size();
  if (classes > device::kMaxReductionLines || sms.empty()) return false;
  device::ReductionRequest r;
  r.span_bytes = span_bytes(line_bytes);
  r.rounds = kMapPasses;
  for (const int line : c.representative)
    r.line_offsets.push_back(static_cast<std::uint64_t>(line) * line_bytes);
  slice_map::Map map;
  try {
    for (const int sm : sms) {
      r.timed_sm = sm;
      add_row(map, ctx.reductions(r).cycles, classes);
    }
  } catch (const device::Error& e) {
    if (e.kind() != device::Error::Kind::BadRequest) throw;
    return false;
  }
  slice_map::add_slices(ctx, map, sms, confidence);
  ctx.put("l2", keys::sliceLatencySpread,
          slice_map::spread(
              map, sms,
              fmt::format("the largest minus the least per-SM x per-slice reduction latency: one "
                          "thread on each of {} SMs, {} dependent atom.global.add on each slice's "
                          "first line a visit, the median of {} passes",
                          sms.size(), device::kReductionChain, kMapPasses),
              confidence, "cyclesBySmAndSlice", "slice"));
  return true;
}

}  // namespace gputopo::discovery::slice_contention
