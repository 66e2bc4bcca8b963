#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/latency_classes.hpp"
#include "analysis/profile_groups.hpp"
#include "discovery/chase_latencies.hpp"
#include "discovery/context.hpp"
#include "discovery/discovery_options.hpp"
#include "discovery/probes/layout/l2_slice_contention.hpp"
#include "discovery/probes/layout/l2_slice_map.hpp"
#include "discovery/registry.hpp"
#include "model/topology.hpp"

namespace gputopo::discovery {
namespace {

// 2^10 consecutive lines: the hash is read over ten line-index bits.
constexpr int kLineBits = 10;
constexpr std::uint32_t kRepeats = 4;
// SMs timed, spread evenly over the GPU: enough degrees of freedom to tell profiles apart.
constexpr int kMaxSms = 64;
constexpr std::uint32_t kSliceElementBytes = 4;
// Lines that may sit outside their hash coset's class (a noisy classing's strays) for the hash to
// stand; each costs confidence.
constexpr double kMaxMisfitShare = 0.01;

using SliceSamples = std::vector<std::vector<std::vector<double>>>;

std::vector<int> slice_timed_sms(int count) {
  std::vector<int> sms;
  const int n = std::min(count, kMaxSms);
  for (int i = 0; i < n; ++i) sms.push_back(i * count / n);
  return sms;
}

double median_sd(const analysis::LatencyClasses& c) {
  std::vector<double> sd = c.sample_sd;
  std::sort(sd.begin(), sd.end());
  return sd.empty() ? 0.0 : sd[sd.size() / 2];
}

class L2SlicesProbe final : public Probe {
 public:
  L2SlicesProbe() : Probe("l2.slices", {"l2"}) {
    declare({{"l2", &keys::lineSize}},
            {{"l2", &keys::sliceCount}, {"l2", &keys::sliceLatencySpread}});
  }

  void run(Context& ctx) override {
    // `count`: l2.sliceCount as well (where contention has not put it).
    const auto fail = [&](const std::string& why, bool count) {
      if (count)
        ctx.put("l2", keys::sliceCount,
                model::Attribute::unavailable(model::Source::Measured, "", why));
      ctx.put("l2", keys::sliceLatencySpread,
              model::Attribute::unavailable(model::Source::Measured, "cycles", why));
    };
    const int lines = 1 << kLineBits;
    const auto sms = slice_timed_sms(ctx.info().sm_count());
    if (ctx.options().depth != Depth::Full)
      return fail(fmt::format("not measured at --depth quick: {},{:03} consecutive lines classed "
                              "by reduction contention, then {} SMs' latency to them (--depth "
                              "full)",
                              lines / 1000, lines % 1000, sms.size()),
                  true);
    const Input line = ctx.input("l2", keys::lineSize);
    line_ = line ? static_cast<std::uint64_t>(*line.value) : 128;
    const std::string weaker = line ? std::string() : "line size taken as 128 B: " + line.why;
    std::string no_contention;
    const auto contention = slice_contention::classes(ctx, lines, line_, no_contention);
    std::optional<double> confidence;
    if (contention) confidence = slice_contention::put_count(ctx, *contention, line_, weaker);
    if (confidence && slice_contention::put_latency_map(ctx, *contention, line_, sms, *confidence))
      return;
    for (std::size_t k = 0; confidence && k < contention->representative.size(); ++k)
      model::add_slice(ctx.topology(), {static_cast<int>(k), std::nullopt, {}, *confidence, {}},
                       "l2.sliceCount");
    if (line_ < kSliceElementBytes * (kRepeats + 1))
      return fail(
          fmt::format("a {} B line holds fewer than {} 4-byte elements", line_, kRepeats + 1),
          !contention);
    SliceSamples samples;
    try {
      samples = measure(ctx, sms, lines);
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      return fail((contention ? std::string() : "no reductions (" + no_contention + "), and ") +
                      "the device cannot chase a sequence on one SM: " + e.what(),
                  !contention);
    }
    if (samples.empty()) return fail("a chase returned fewer loads than it made", !contention);
    const auto classes = analysis::latency_classes(samples);
    if (!contention) put_count(ctx, classes, sms, weaker, no_contention);
    put_latency(ctx, classes, sms);
  }

 private:
  // Pass 0 loads every line once (from device memory), passes 1..kRepeats are the L2 hits timed:
  // visit p of line l reads its 4-byte element p, so every load of a pass is a new element.
  device::ChaseRequest request(int sm, int lines) const {
    device::ChaseRequest r;
    r.space = device::Space::L2;
    r.array_bytes = static_cast<std::uint64_t>(lines) * line_;
    r.stride_bytes = kSliceElementBytes;
    r.warmup_passes = 0;
    r.pattern = device::Pattern::Sequence;
    r.sm = sm;
    const std::uint64_t per_line = line_ / kSliceElementBytes;
    for (std::uint32_t p = 0; p <= kRepeats; ++p)
      for (int l = 0; l < lines; ++l)
        r.sequence.push_back(static_cast<std::uint64_t>(l) * per_line + p);
    r.recorded_loads = static_cast<std::uint32_t>(r.sequence.size());
    return r;
  }

  SliceSamples measure(Context& ctx, const std::vector<int>& sms, int lines) const {
    device::ChaseBatch batch;
    for (const int sm : sms) batch.requests.push_back(request(sm, lines));
    const auto result = ctx.chase(batch);
    SliceSamples s(static_cast<std::size_t>(lines), std::vector<std::vector<double>>(sms.size()));
    for (std::size_t m = 0; m < sms.size(); ++m) {
      const auto lat = latencies(result.results.at(m));
      if (lat.size() < static_cast<std::size_t>(lines) * (kRepeats + 1)) return {};
      for (std::uint32_t p = 1; p <= kRepeats; ++p)
        for (int l = 0; l < lines; ++l)
          s[static_cast<std::size_t>(l)][m].push_back(
              lat[static_cast<std::size_t>(p) * static_cast<std::size_t>(lines) +
                  static_cast<std::size_t>(l)]);
    }
    return s;
  }

  model::Json evidence(const analysis::LatencyClasses& c, const analysis::XorHash& hash,
                       const std::vector<int>& sms) const {
    model::Json e = {{"lineClass", slice_map::class_text(c.label, c.count)},
                     {"classSizes", c.sizes},
                     {"timedSms", sms},
                     {"repeats", kRepeats},
                     {"lineBytes", line_},
                     {"sampleSdCycles", median_sd(c)},
                     {"criticalChi2", c.critical},
                     {"weakestSplitChi2", c.weakest_split},
                     {"strongestMergeChi2", c.strongest_merge}};
    if (c.count < 2) return e;
    e["hashLinear"] = hash.linear;
    e["hashMasks"] = slice_map::address_masks(hash, line_);
    e["hashConsistency"] = hash.consistency;
    e["hashMisfits"] = hash.misfits;
    return e;
  }

  void put_count(Context& ctx, const analysis::LatencyClasses& c, const std::vector<int>& sms,
                 const std::string& weaker, const std::string& no_contention) const {
    const auto lines = c.label.size();
    const analysis::XorHash hash = analysis::solve_xor_hash(c.label, kMaxMisfitShare);
    const std::string method = fmt::format(
        "L2 hit latency of {} consecutive lines from {} SMs ({} repeats each, one SM at a time): "
        "lines whose profiles over the SMs differ by no more than noise (a held-out chi-square) "
        "share a class; the hash is solved over GF(2) on line-index bits 0-{} (a slice bit on "
        "higher bits alone is not seen)",
        lines, sms.size(), kRepeats, kLineBits - 1);
    model::Attribute a;
    if (c.count < 2) {
      a = model::Attribute::unavailable(
          model::Source::Measured, "",
          fmt::format("one latency class: no two of {} lines differ in their latency from {} "
                      "SMs beyond noise (one sample {:.1f} cycles): slices, if any, sit at one "
                      "latency from every SM",
                      lines, sms.size(), median_sd(c)));
    } else if (!hash.linear) {
      a = model::Attribute::unavailable(
          model::Source::Measured, "",
          fmt::format("{} latency classes of sizes {}, but {}; slices that every SM reaches at "
                      "one latency share a class, so the classes are not counted as slices",
                      c.count, fmt::join(c.sizes, ", "), hash.reason));
    } else {
      const int slices = 1 << hash.rank;
      const double share = static_cast<double>(hash.misfits) / static_cast<double>(lines);
      const double confidence = c.confidence * (1 - 10 * share);
      a = model::Attribute::measured(slices, "", method, confidence);
      a.reason = weaker;
      if (hash.misfits > 0 || slices != c.count)
        a.reason += fmt::format("{}{} latency classes; {} lines outside their hash coset's class",
                                a.reason.empty() ? "" : "; ", c.count, hash.misfits);
      if (slices == c.count) slice_map::add_slices(ctx, {c.mean, c.half}, sms, confidence);
    }
    if (c.count >= 2) a.method = method;
    a.evidence = evidence(c, hash, sms);
    a.evidence["noContention"] = no_contention;
    ctx.put("l2", keys::sliceCount, std::move(a));
  }

  // The spread of the per-SM x per-class latency, with the map in its evidence.
  static void put_latency(Context& ctx, const analysis::LatencyClasses& c,
                          const std::vector<int>& sms) {
    if (c.count < 2) {
      ctx.put("l2", keys::sliceLatencySpread,
              model::Attribute::unavailable(model::Source::Measured, "cycles",
                                            "one latency class: no per-slice latency"));
      return;
    }
    double widest = 0;
    for (const auto& row : c.half)
      widest = std::max(widest, *std::max_element(row.begin(), row.end()));
    auto a = slice_map::spread(
        {c.mean, c.half}, sms,
        "the largest minus the least per-SM x per-class L2 hit latency (each a mean over the "
        "class's lines of the lower median of the repeats; clock reads overlap the loads, so the "
        "cells are offsets, not latencies)",
        c.confidence, "cyclesBySmAndClass", "class");
    a.evidence["halfWidth95Max"] = std::round(widest * 100) / 100;
    ctx.put("l2", keys::sliceLatencySpread, std::move(a));
  }

  std::uint64_t line_ = 128;
};

}  // namespace

// The L2's slices: classes of lines by their latency from many SMs, and their address hash.
GPUTOPO_REGISTER_PROBE(Family::Layout, 30, Made::Once,
                       [](const Site&) { return std::make_unique<L2SlicesProbe>(); });

}  // namespace gputopo::discovery
