#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
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
// twice the line, at most 1.5 / 1.75 of the segment's lines are touched and the array fits. The
// line is the largest p whose chase still misses in more than half the largest miss share. The
// offset keeps the touched lines spread over every set of a hashed index (a power-of-two stride
// would alias into a fraction of them), and the wide oversize keeps the uneven per-set load of
// such an index from blurring the two sides. A stride of whole lines still aliases into 1/k of
// the sets of a modulo index whose set count shares the factor k with it: 9/8 p is 9 lines where
// p is 8, and 405 of 3,645 sets then thrash at every p. Each p is therefore chased at 9/8 p and
// 7/8 p (from 64 B), whose line counts share no factor, and a candidate misses only where both
// do.
struct MissFractions {
  std::vector<double> at;  // per candidate
  std::size_t loads = 0;   // timed loads of each chase
};

// The miss share of chases of `array` at stride(p) for every candidate p (-1 where the stride is
// not a whole number of 8-byte words), against the levels of all of them together.
template <class Stride>
MissFractions miss_fractions(Context& ctx, std::uint64_t array,
                             const std::vector<std::uint32_t>& candidates, Stride stride) {
  device::ChaseBatch batch;
  std::vector<std::size_t> chased;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::uint32_t s = stride(candidates[i]);
    if (s == 0 || s % 8 != 0) continue;
    chased.push_back(i);
    batch.requests.push_back(l2_chase(array, s, 1, 1024, -1));
  }
  MissFractions out;
  out.at.assign(candidates.size(), -1.0);
  if (batch.requests.empty()) return out;
  ctx.expect_batches(1);
  const auto result = ctx.chase(batch);
  std::vector<std::vector<double>> samples;
  for (const auto& r : result.results) samples.push_back(latencies(r));
  std::vector<std::span<const double>> spans(samples.begin(), samples.end());
  const auto levels = analysis::cluster_levels(spans);
  for (std::size_t k = 0; k < chased.size() && k < samples.size(); ++k) {
    out.at[chased[k]] = analysis::miss_fraction(samples[k], levels);
    out.loads = std::max(out.loads, samples[k].size());
  }
  return out;
}

// The 7/8 strides, or nullopt where the device refuses them (a recording made without them).
std::optional<std::vector<double>> other_stride(Context& ctx, std::uint64_t array,
                                                const std::vector<std::uint32_t>& candidates,
                                                std::vector<std::string>& weaker) {
  try {
    auto sevenths = miss_fractions(ctx, array, candidates,
                                   [](std::uint32_t p) { return p >= 64 ? p - p / 8 : 0; });
    // A candidate chased at one stride only keeps that stride's share.
    for (double& m : sevenths.at)
      if (m < 0) m = 1.0;
    return sevenths.at;
  } catch (const device::Error& e) {
    if (e.kind() != device::Error::Kind::BadRequest) throw;
    weaker.push_back("chased at 9/8 of each power of two only: the device refused the 7/8 strides");
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

    std::vector<std::uint32_t> lines;
    for (std::uint32_t p = std::max<std::uint32_t>(fg, 8); p <= kMaxLine; p *= 2)
      lines.push_back(p);
    const auto ninths =
        miss_fractions(ctx, array, lines, [](std::uint32_t p) { return p + p / 8; });
    std::vector<double> miss = ninths.at;
    model::Json evidence = {{"arrayBytes", array},
                            {"segmentBytes", segment.largest},
                            {"candidates", lines},
                            {"missFractionAtNineEighths", ninths.at}};
    if (const auto sevenths = other_stride(ctx, array, lines, weaker)) {
      evidence["missFractionAtSevenEighths"] = *sevenths;
      for (std::size_t i = 0; i < miss.size(); ++i) miss[i] = std::min(miss[i], (*sevenths)[i]);
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
