#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/profile_groups.hpp"
#include "discovery/context.hpp"
#include "discovery/discovery_options.hpp"
#include "discovery/registry.hpp"
#include "model/topology.hpp"

namespace gputopo::discovery {
namespace {

// Consecutive lines classed: 2^8, so the hash is read over eight line-index bits.
constexpr int kLineBits = 8;
constexpr std::uint32_t kRepeats = 3;
// A pair of lines reading at under kSameRatio times one line's rate shares a slice (one slice:
// 1, two slices: 2 where the slices bound the rate).
constexpr double kSameRatio = 1.5;
constexpr std::size_t kMaxClasses = 64;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Classes {
  std::vector<int> of_line;
  std::vector<int> representatives;
  std::vector<double> same, apart;  // pair rate over the one-line rate, by verdict
  double spread = 0;                // the largest relative spread of a call's repeats
  bool overflow = false;
};

class L2SlicesProbe final : public Probe {
 public:
  L2SlicesProbe() : Probe("l2.slices", {"l2"}) {
    declare({{"l2", &keys::lineSize}}, {{"l2", &keys::sliceCount}});
  }

  void run(Context& ctx) override {
    const auto fail = [&](const std::string& why) {
      ctx.put("l2", keys::sliceCount,
              model::Attribute::unavailable(model::Source::Measured, "", why));
    };
    if (ctx.options().depth != Depth::Full)
      return fail(
          "not measured at --depth quick: about 1,000 timed two-line reads by every SM "
          "(--depth full)");
    const Input line = ctx.input("l2", keys::lineSize);
    line_ = line ? static_cast<std::uint64_t>(*line.value) : 128;
    for (int s = 0; s < ctx.info().sm_count(); ++s) sms_.push_back(s);
    Classes c;
    try {
      one_ = rate(ctx, {0}, c);
      classify(ctx, c);
    } catch (const device::Error& e) {
      return fail(std::string("the device cannot time read rates: ") + e.what());
    }
    put_result(ctx, c, line ? std::string() : "line size taken as 128 B: " + line.why);
  }

 private:
  double rate(Context& ctx, std::vector<std::uint64_t> lines, Classes& c) const {
    device::ReadRateRequest r;
    r.sms = sms_;
    for (const auto l : lines) r.line_offsets.push_back(l * line_);
    r.repeats = kRepeats;
    const auto result = ctx.read_rate(r);
    const auto [lo, hi] = std::minmax_element(result.gbps.begin(), result.gbps.end());
    const double mid = median(result.gbps);
    if (mid > 0) c.spread = std::max(c.spread, (*hi - *lo) / mid);
    return mid;
  }

  // Each line joins the first class whose first line it contends with, else founds a class.
  void classify(Context& ctx, Classes& c) const {
    for (std::uint64_t l = 0; l < (std::uint64_t{1} << kLineBits) && !c.overflow; ++l) {
      int joined = -1;
      for (std::size_t k = 0; k < c.representatives.size() && joined < 0; ++k) {
        const auto rep = static_cast<std::uint64_t>(c.representatives[k]);
        const double ratio = rep == l ? 1.0 : rate(ctx, {rep, l}, c) / one_;
        (ratio < kSameRatio ? c.same : c.apart).push_back(ratio);
        if (ratio < kSameRatio) joined = static_cast<int>(k);
      }
      if (joined < 0) {
        joined = static_cast<int>(c.representatives.size());
        c.representatives.push_back(static_cast<int>(l));
        c.overflow = c.representatives.size() > kMaxClasses;
      }
      c.of_line.push_back(joined);
    }
  }

  // Confidence from how far apart the two verdicts' ratios lie against the repeats' spread.
  static double separation_confidence(const Classes& c) {
    if (c.apart.empty()) return 0;
    const double same_top = c.same.empty() ? 1.0 : *std::max_element(c.same.begin(), c.same.end());
    const double apart_low = *std::min_element(c.apart.begin(), c.apart.end());
    const double noise = std::max(c.spread, 0.01) * apart_low;
    const double z = (apart_low - same_top) / noise;
    return std::clamp(0.5 * std::erfc(-z / std::sqrt(2.0)), 0.0, 0.99);
  }

  void put_result(Context& ctx, const Classes& c, const std::string& weaker) const {
    const auto fail = [&](const std::string& why) {
      ctx.put("l2", keys::sliceCount,
              model::Attribute::unavailable(model::Source::Measured, "", why));
    };
    if (c.overflow)
      return fail("more than " + std::to_string(kMaxClasses) + " classes among the first " +
                  std::to_string(c.of_line.size()) + " lines");
    if (c.apart.empty())
      return fail("no two of " + std::to_string(c.of_line.size()) +
                  " consecutive lines read faster together than one alone: one slice a segment, "
                  "or slices do not bound the read rate");
    const analysis::XorHash hash = analysis::solve_xor_hash(c.of_line);
    const int shift = std::countr_zero(line_);
    std::vector<std::string> masks;
    for (const auto m : hash.masks) masks.push_back(fmt::format("{:#x}", m << shift));
    const auto n = static_cast<int>(c.representatives.size());
    double confidence = separation_confidence(c);
    if (!hash.linear) confidence *= 0.5;
    auto a = model::Attribute::measured(
        n, "",
        "two-line read rates by every SM: each of " + std::to_string(c.of_line.size()) +
            " consecutive lines joins the first class whose first line it reads at under 1.5 "
            "times one line's rate (one slice serving both); the hash is solved over GF(2) on "
            "line-index bits 0-" +
            std::to_string(kLineBits - 1) + " (a slice bit on higher bits alone is not seen)",
        confidence);
    a.evidence = {{"lineClass", c.of_line}, {"sameRatios", c.same},
                  {"apartRatios", c.apart}, {"repeatSpread", c.spread},
                  {"oneLineGbps", one_},    {"hashLinear", hash.linear},
                  {"hashMasks", masks},     {"hashConsistency", hash.consistency}};
    a.reason = hash.linear ? weaker : hash.reason + (weaker.empty() ? "" : "; " + weaker);
    for (int k = 0; k < n; ++k)
      model::add_slice(ctx.topology(), {k, std::nullopt, {}, confidence}, "l2.sliceCount");
    ctx.put("l2", keys::sliceCount, std::move(a));
  }

  std::uint64_t line_ = 128;
  std::vector<int> sms_;
  double one_ = 0;
};

}  // namespace

// The L2's slices a segment and their address hash, by two-line read rates.
GPUTOPO_REGISTER_PROBE(Family::Layout, 30, Made::Once,
                       [](const Site&) { return std::make_unique<L2SlicesProbe>(); });

}  // namespace gputopo::discovery
