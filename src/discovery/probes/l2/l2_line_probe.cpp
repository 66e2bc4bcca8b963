#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analysis/cluster.hpp"
#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// The swept array exceeds one segment by this factor.
constexpr double kOversize = 1.5;
constexpr std::uint32_t kMaxLine = 2048;
// The least miss share the thrashing side must reach: a random-replacement segment 1.5 times
// overfilled still misses about half its loads; under this, no side thrashes.
constexpr double kMinPeak = 0.2;

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// An array 1.5 segments large, chased at strides just off powers of two p from the fetch
// granularity up. While the stride is below a line every line is touched and the segment thrashes
// (at strides under a line only the first load of a line may leave it); once the stride passes
// twice the line, at most 1.5 / 1.625 of the segment's lines are touched and the array fits. The
// line is the largest p whose chase still misses in more than half the largest miss share. The
// offset keeps the touched lines spread over every set of a hashed index (a power-of-two stride
// would alias into a fraction of them), and the wide oversize keeps the uneven per-set load of
// such an index from blurring the two sides. A stride of whole lines still aliases into 1/k of
// the sets of a modulo index whose set count shares the factor k with it: 9/8 p is 9 lines where
// p is 8, and 405 of 3,645 sets then thrash at every p. Each p is therefore also chased at 7/8 p
// and 17/16 p, whose line counts share no factor with 9 or each other, and a candidate misses only
// where every stride does: a set count would need the factors 3, 7 and 17 to fool it.
struct Ratio {
  std::uint32_t num = 1, den = 1;
};

struct MissFractions {
  std::vector<std::vector<double>> at;  // per ratio, per candidate; -1 where not chased
  std::size_t loads = 0;                // timed loads of each chase
};

// The miss share of chases of `array` at p x num / den for every candidate p and ratio that give
// a whole number of 4-byte elements, against the levels of the whole batch.
MissFractions miss_fractions(Context& ctx, std::uint64_t array,
                             const std::vector<std::uint32_t>& candidates,
                             const std::vector<Ratio>& ratios) {
  device::ChaseBatch batch;
  std::vector<std::pair<std::size_t, std::size_t>> chased;  // (ratio, candidate)
  for (std::size_t r = 0; r < ratios.size(); ++r)
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const std::uint64_t scaled = std::uint64_t{candidates[i]} * ratios[r].num;
      if (scaled % ratios[r].den != 0 || (scaled / ratios[r].den) % 4 != 0) continue;
      chased.emplace_back(r, i);
      batch.requests.push_back(
          l2_chase(array, static_cast<std::uint32_t>(scaled / ratios[r].den), 1, 1024, -1));
    }
  MissFractions out;
  out.at.assign(ratios.size(), std::vector<double>(candidates.size(), -1.0));
  if (batch.requests.empty()) return out;
  ctx.expect_batches(1);
  const auto result = ctx.chase(batch);
  std::vector<std::vector<double>> samples;
  for (const auto& r : result.results) samples.push_back(latencies(r));
  std::vector<std::span<const double>> spans(samples.begin(), samples.end());
  const auto levels = analysis::cluster_levels(spans);
  for (std::size_t k = 0; k < chased.size() && k < samples.size(); ++k) {
    out.at[chased[k].first][chased[k].second] = analysis::miss_fraction(samples[k], levels);
    out.loads = std::max(out.loads, samples[k].size());
  }
  return out;
}

// The 7/8 and 17/16 strides, or nullopt where the device refuses them (a recording made without
// them).
std::optional<MissFractions> other_strides(Context& ctx, std::uint64_t array,
                                           const std::vector<std::uint32_t>& candidates,
                                           std::vector<std::string>& weaker) {
  try {
    return miss_fractions(ctx, array, candidates, {{7, 8}, {17, 16}});
  } catch (const device::Error& e) {
    if (e.kind() != device::Error::Kind::BadRequest) throw;
    weaker.push_back(
        "chased at 9/8 of each power of two only: the device refused the other strides");
    return std::nullopt;
  }
}

class L2LineProbe final : public Probe {
 public:
  L2LineProbe() : Probe("l2.line", {"l2"}) {
    declare(
        {{"l2", &keys::fetchGranularity}, {"l2", &keys::segmentSize}, {"l2", &keys::segmentCount}},
        {{"l2", &keys::lineSize}});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why, model::Json evidence = {}) {
      auto a = model::Attribute::unavailable(model::Source::Measured, "B", why);
      a.method = "stride-sweep-past-segment";
      a.evidence = std::move(evidence);
      ctx.put("l2", keys::lineSize, std::move(a));
    };
    const SegmentSpan segment = segment_span(ctx);
    if (!segment.measured) return fail("needs the segment size: " + segment.why);
    std::vector<std::string> weaker;
    // Oversized against the largest segment the count allows, the array thrashes whichever it is.
    if (!segment.established)
      weaker.push_back(segment.why +
                       "; the array is 1.5 x the larger fraction the step lies between");
    const std::uint32_t fg = fetch_granularity_or(ctx, l2_target(), 32, weaker);
    const auto array = round_up(static_cast<std::uint64_t>(segment.largest * kOversize), 4096);

    // No L2 line is shorter than its 32-byte sector.
    std::vector<std::uint32_t> lines;
    for (std::uint32_t p = std::max<std::uint32_t>(fg, 32); p <= kMaxLine; p *= 2)
      lines.push_back(p);
    const auto ninths = miss_fractions(ctx, array, lines, {{9, 8}});
    std::vector<double> miss = ninths.at[0];
    model::Json evidence = {{"arrayBytes", array},
                            {"segmentBytes", segment.largest},
                            {"candidates", lines},
                            {"missFractionAtNineEighths", ninths.at[0]}};
    if (const auto others = other_strides(ctx, array, lines, weaker)) {
      evidence["missFractionAtSevenEighths"] = others->at[0];
      evidence["missFractionAtSeventeenSixteenths"] = others->at[1];
      for (const auto& at : others->at)
        for (std::size_t i = 0; i < miss.size(); ++i)
          if (at[i] >= 0) miss[i] = std::min(miss[i], at[i]);
    }
    const std::size_t loads = ninths.loads;
    evidence["missFraction"] = miss;
    // The largest candidate that misses in more than half the largest share, with only hits
    // beyond it. An LRU or FIFO segment misses every load below the line (the cut is then a
    // half); a random-replacement one keeps part of every pass, so its peak is lower.
    const double peak = *std::max_element(miss.begin(), miss.end());
    const double cut = peak / 2;
    std::size_t last = miss.size();
    for (std::size_t i = 0; i < miss.size(); ++i)
      if (miss[i] > cut) last = i;
    if (peak < kMinPeak || last == miss.size())
      return fail("no stride made the array thrash the segment", evidence);
    if (last + 1 == miss.size())
      return fail("the array still thrashes at " + std::to_string(lines.back() + lines.back() / 8) +
                      " B stride: the line is larger than " + std::to_string(kMaxLine) +
                      " B or the segment size is wrong",
                  evidence);
    const double beyond =
        *std::max_element(miss.begin() + static_cast<std::ptrdiff_t>(last) + 1, miss.end());
    // Sampling certainty of both sides of the cut, scaled down where the two sides are not
    // clearly apart (a gradual fall over several candidates).
    const double n = static_cast<double>(loads);
    const double sd = std::sqrt(cut * (1 - cut) / n);
    const double z_miss = (miss[last] - cut) / sd;
    const double z_hit = (cut - beyond) / sd;
    const double sampling = normal_cdf(z_miss) * normal_cdf(z_hit);
    const double confidence = sampling * std::min(1.0, (miss[last] - beyond) / cut);
    auto a = model::Attribute::measured(lines[last], "B", "stride-sweep-past-segment", confidence);
    a.interval =
        model::Interval{static_cast<double>(lines[last]), static_cast<double>(lines[last]) * 2 - 1};
    a.evidence = std::move(evidence);
    weaker.insert(weaker.begin(), "lines are taken to be powers of two");
    a.reason = join(weaker);
    ctx.put("l2", keys::lineSize, std::move(a));
  }
};

}  // namespace

// Stride sweep over 1.5 segments at strides just past powers of two -> line size
//.
GPUTOPO_REGISTER_PROBE(Family::L2, 30, Made::Once,
                       [](const Site&) { return std::make_unique<L2LineProbe>(); });

}  // namespace gputopo::discovery
