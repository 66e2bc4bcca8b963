#include "discovery/probes/layout/l2_slice_contention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "analysis/profile_groups.hpp"
#include "model/keys.hpp"
#include "model/topology.hpp"

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
  model::Json e = {{"lineClass", class_text(c.label, count)},
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
  if (hash.linear) {
    std::vector<std::string> masks;
    for (const auto m : hash.masks)
      masks.push_back(fmt::format("{:#x}", m << std::countr_zero(line_bytes)));
    e["hashMasks"] = masks;
  }
  return e;
}

// One SM's reduction latency to each class: the median over the passes, and its 95 % half-width
// (1.96 x the passes' standard deviation / sqrt(passes)).
struct Cells {
  std::vector<double> value, half;
};

Cells cells(const std::vector<double>& cycles, std::size_t classes) {
  Cells out;
  for (std::size_t k = 0; k < classes; ++k) {
    std::vector<double> v;
    for (std::size_t p = 0; p < kMapPasses; ++p) v.push_back(cycles.at(p * classes + k));
    std::sort(v.begin(), v.end());
    double mean = 0, var = 0;
    for (const double x : v) mean += x / static_cast<double>(v.size());
    for (const double x : v) var += (x - mean) * (x - mean) / static_cast<double>(v.size() - 1);
    out.value.push_back(v[(v.size() - 1) / 2]);
    out.half.push_back(1.96 * std::sqrt(var / static_cast<double>(v.size())));
  }
  return out;
}

// The map's spread (its interval the two cells' half-widths) and each class's nearest SMs: those
// within both half-widths of the least.
void put_map(Context& ctx, const std::vector<Cells>& map, const std::vector<int>& sms,
             double confidence) {
  const std::size_t classes = map.front().value.size();
  std::size_t lo_m = 0, lo_k = 0, hi_m = 0, hi_k = 0;
  model::Json rounded = model::Json::array();
  for (std::size_t m = 0; m < map.size(); ++m) {
    model::Json row = model::Json::array();
    for (std::size_t k = 0; k < classes; ++k) {
      if (map[m].value[k] < map[lo_m].value[lo_k]) lo_m = m, lo_k = k;
      if (map[m].value[k] > map[hi_m].value[hi_k]) hi_m = m, hi_k = k;
      row.push_back(std::round(map[m].value[k] * 10) / 10);
    }
    rounded.push_back(std::move(row));
  }
  for (std::size_t k = 0; k < classes; ++k) {
    std::size_t best = 0;
    for (std::size_t m = 1; m < map.size(); ++m)
      if (map[m].value[k] < map[best].value[k]) best = m;
    model::SmList near;
    for (std::size_t m = 0; m < map.size(); ++m)
      if (map[m].value[k] - map[m].half[k] <= map[best].value[k] + map[best].half[k])
        near.push_back(sms[m]);
    std::vector<double> cycles;
    for (const auto& row : map) cycles.push_back(row.value[k]);
    model::add_slice(ctx.topology(),
                     {static_cast<int>(k), std::nullopt, near, confidence, std::move(cycles)},
                     "l2.sliceCount");
  }
  ctx.topology().slice_sms = sms;
  const double spread = map[hi_m].value[hi_k] - map[lo_m].value[lo_k];
  const double half = map[hi_m].half[hi_k] + map[lo_m].half[lo_k];
  auto a = model::Attribute::measured(
      spread, "cycles",
      fmt::format("the largest minus the least per-SM x per-slice reduction latency: one thread on "
                  "each of {} SMs, {} dependent atom.global.add on each slice's first line a "
                  "visit, the median of {} passes",
                  sms.size(), device::kReductionChain, kMapPasses),
      confidence);
  a.interval = model::Interval{std::max(0.0, spread - half), spread + half};
  a.evidence = {{"sms", sms},
                {"cyclesBySmAndSlice", rounded},
                {"least", {{"sm", sms[lo_m]}, {"slice", lo_k}}},
                {"most", {{"sm", sms[hi_m]}, {"slice", hi_k}}}};
  ctx.put("l2", keys::sliceLatencySpread, std::move(a));
}

}  // namespace

model::Json class_text(const std::vector<int>& label, int count) {
  if (count > 36) return label;
  std::string text;
  for (const int k : label) text += "0123456789abcdefghijklmnopqrstuvwxyz"[k];
  return text;
}

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
  std::vector<Cells> map;
  try {
    for (const int sm : sms) {
      r.timed_sm = sm;
      map.push_back(cells(ctx.reductions(r).cycles, classes));
    }
  } catch (const device::Error& e) {
    if (e.kind() != device::Error::Kind::BadRequest) throw;
    return false;
  }
  put_map(ctx, map, sms, confidence);
  return true;
}

}  // namespace gputopo::discovery::slice_contention
