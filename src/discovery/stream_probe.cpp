#include "discovery/stream_probe.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/interval.hpp"
#include "analysis/summary.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {

std::optional<Bandwidth> bandwidth_of(const device::StreamResult& r, std::uint64_t bytes) {
  std::vector<double> v;
  for (double g : r.gbps)
    if (std::isfinite(g) && g > 0) v.push_back(g);
  if (v.empty()) return std::nullopt;
  const auto s = analysis::summarize(v);
  Bandwidth b;
  // The best repeat, as STREAM reports: the rate the hardware sustained when nothing got in the
  // way; the median and the spread are evidence and confidence.
  b.gbps = s.max;
  const auto bounds = analysis::best_of_interval(v);
  b.interval = {bounds.lo, bounds.hi};
  // Repeats within 2 % of each other give full confidence; 20 % spread gives none.
  const double spread = s.median > 0 ? (s.max - s.min) / s.median : 1.0;
  b.confidence = std::clamp(1.0 - (spread - 0.02) / 0.18, 0.0, 1.0);
  b.evidence = {{"bufferBytes", bytes},
                {"repeats", v},
                {"mean", s.mean},
                {"median", s.median},
                {"min", s.min},
                {"max", s.max},
                {"blocks", r.blocks},
                {"threadsPerBlock", r.threads_per_block},
                {"vectorBytes", r.vector_bytes}};
  if (r.unroll) b.evidence["accessesInFlight"] = *r.unroll;
  if (r.candidates) b.evidence["kernelsTried"] = *r.candidates;
  if (r.from_memo.value_or(false))
    b.evidence["tuning"] = "an earlier run's finalists (tuning memo)";
  if (r.launch_cost_ns) b.evidence["launchCostNs"] = *r.launch_cost_ns;
  return b;
}

namespace {

// The keys of one stream kind: the whole GPU's GB/s and, for an SM's own memory, bytes per SM clock
// per SM (read streams only).
struct StreamKeys {
  const model::Key* gbps;
  const model::Key* per_sm;
};
// Where a probe reads in both patterns, each pattern has its own key and readBandwidth is the
// faster of the two (put_fastest_read).
bool reads_both_patterns(std::span<const Stream> streams) {
  const auto reads = [&](device::StreamSharing sharing) {
    return std::any_of(streams.begin(), streams.end(), [&](const Stream& s) {
      return s.kind == device::StreamKind::Read && s.sharing == sharing;
    });
  };
  return reads(device::StreamSharing::Own) && reads(device::StreamSharing::Shared);
}

StreamKeys keys_of(const Stream& stream, bool both_patterns) {
  switch (stream.kind) {
    case device::StreamKind::Read:
      if (stream.sharing == device::StreamSharing::Shared)
        return {&keys::sharedReadBandwidth, nullptr};
      if (both_patterns) return {&keys::unsharedReadBandwidth, nullptr};
      return {&keys::readBandwidth, &keys::readBytesPerClkPerSm};
    case device::StreamKind::Write:
      return {&keys::writeBandwidth, nullptr};
    case device::StreamKind::Copy:
      return {&keys::copyBandwidth, nullptr};
  }
  return {&keys::readBandwidth, nullptr};
}

// What a stream's kernels do, for the method.
std::string method_of(const Stream& stream, const std::string& why) {
  const std::string name = "stream-" + std::string(device::to_string(stream.kind));
  const std::string family =
      "the fastest of a family of kernels (bytes per access, accesses in flight, blocks per SM, "
      "threads, a grid that walks the buffer or covers it once) and buffers, best of its "
      "repeats; bytes read plus bytes written per second";
  if (stream.sharing == device::StreamSharing::Shared)
    return name +
           "-shared (every block reads the whole buffer: all SMs read the same lines at about "
           "the same time, which the L2 can serve faster than as many distinct lines; " +
           why + ", but the largest, which no smaller set is slower than): " + family;
  return name + " (" + why + "; each part of the buffer read by one warp a pass): " + family;
}

}  // namespace

std::vector<Finding> StreamProbe::writes_of(const std::string& element,
                                            std::span<const Stream> streams) {
  std::vector<Finding> out;
  const bool both = reads_both_patterns(streams);
  for (const auto& stream : streams) {
    const StreamKeys key = keys_of(stream, both);
    out.push_back({element, key.gbps});
    if (key.per_sm) out.push_back({element, key.per_sm});
  }
  if (both) out.push_back({element, &keys::readBandwidth});
  return out;
}

// readBandwidth of a probe that reads in both patterns: the faster one, named in the method, so
// that the element's read bandwidth is, as everywhere, the most it delivered.
void StreamProbe::put_fastest_read(Context& ctx, const model::Attribute* own,
                                   const model::Attribute* shared) const {
  const auto rate = [](const model::Attribute* a) {
    return a && a->available() ? a->value.get<double>() : -1.0;
  };
  if (rate(own) < 0 && rate(shared) < 0) {
    ctx.put(element_, keys::readBandwidth,
            model::Attribute::unavailable(model::Source::Derived, "GB/s",
                                          "neither read pattern was measured "
                                          "(unsharedReadBandwidth and sharedReadBandwidth say "
                                          "why)"));
    return;
  }
  const bool shared_wins = rate(shared) > rate(own);
  model::Attribute a = shared_wins ? *shared : *own;
  a.source = model::Source::Derived;
  a.method = std::string("the faster of the two read patterns: ") +
             (shared_wins ? "sharedReadBandwidth, every SM reading the same lines"
                          : "unsharedReadBandwidth, every SM reading lines of its own");
  a.evidence["pattern"] = shared_wins ? "shared" : "unshared";
  a.evidence["unsharedGbps"] = rate(own) < 0 ? model::Json() : model::Json(rate(own));
  a.evidence["sharedGbps"] = rate(shared) < 0 ? model::Json() : model::Json(rate(shared));
  ctx.put(element_, keys::readBandwidth, std::move(a));
}

void StreamProbe::run(Context& ctx) {
  const Buffers buffers = buffers_(ctx);
  const bool both = reads_both_patterns(streams_);
  for (const auto& stream : streams_) {
    const StreamKeys key = keys_of(stream, both);
    if (buffers.bytes.empty()) {
      ctx.put(element_, *key.gbps,
              model::Attribute::unavailable(model::Source::Measured, "GB/s", buffers.why));
      continue;
    }
    const Best best = fastest(ctx, stream, buffers);
    const bool per_sm = space_ != device::Space::L2 && key.per_sm != nullptr;
    if (!best.bandwidth) {
      const std::string why = best.refused.empty() ? "the stream returned no timing"
                                                   : "the device refused it: " + best.refused;
      ctx.put(element_, *key.gbps,
              model::Attribute::unavailable(model::Source::Measured, "GB/s", why));
      if (per_sm)
        ctx.put(element_, *key.per_sm,
                model::Attribute::unavailable(model::Source::Derived, "B/clk", why));
      continue;
    }
    std::string method = method_of(stream, buffers.why);
    if (best.bandwidth->evidence.contains("launchCostNs"))
      method +=
          "; each repeat's rate taken between a full launch and the fastest eighth one, so that "
          "a launch's fixed cost (launchCostNs: its cold first pass, the blocks' start and end) "
          "drops out";
    auto a = model::Attribute::measured(best.bandwidth->gbps, "GB/s", method,
                                        best.bandwidth->confidence);
    a.evidence = best.bandwidth->evidence;
    a.interval = best.bandwidth->interval;
    if (best.by_buffer.size() > 1) a.evidence["buffers"] = best.by_buffer;
    ctx.put(element_, *key.gbps, a);
    if (per_sm) put_per_sm(ctx, *key.gbps, *key.per_sm, a, *best.conditions);
  }
  if (both)
    put_fastest_read(ctx, ctx.get(element_, keys::unsharedReadBandwidth),
                     ctx.get(element_, keys::sharedReadBandwidth));
}

StreamProbe::Best StreamProbe::fastest(Context& ctx, const Stream& stream,
                                       const Buffers& buffers) const {
  Best best;
  best.by_buffer = model::Json::array();
  // Every block reads a shared set whole, so a smaller set is served at least as fast: the
  // largest buffer never read faster than the others by more than its repeats' noise (three H100s:
  // 0.01 % above to 3 % below the half; five runs of an H200: 2.6-6.3 % below). It is left out.
  std::vector<std::uint64_t> sizes = buffers.bytes;
  if (stream.sharing == device::StreamSharing::Shared && sizes.size() > 1)
    sizes.erase(std::max_element(sizes.begin(), sizes.end()));
  ctx.expect_batches(static_cast<int>(sizes.size()));
  for (const auto bytes : sizes) {
    device::StreamRequest request;
    request.kind = stream.kind;
    request.bytes = bytes;
    request.repeats = 5;
    if (space_ != device::Space::L2) request.space = space_;
    if (stream.sharing == device::StreamSharing::Shared) request.sharing = stream.sharing;
    device::StreamResult result;
    try {
      result = ctx.stream(request);
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      best.refused = e.what();
      continue;
    }
    const auto b = bandwidth_of(result, bytes);
    if (!b) continue;
    best.by_buffer.push_back({{"bufferBytes", bytes}, {"gbps", b->gbps}});
    if (!best.bandwidth || b->gbps > best.bandwidth->gbps) {
      best.bandwidth = b;
      best.conditions = result.conditions;
    }
  }
  return best;
}

void StreamProbe::put_per_sm(Context& ctx, const model::Key& key, const model::Key& per_sm_key,
                             const model::Attribute& gbps,
                             const device::RunConditions& conditions) const {
  const auto ns = ctx.ns_per_cycle(conditions);
  const int sms = ctx.info().sm_count();
  if (!ns || sms < 1) {
    ctx.put(element_, per_sm_key,
            model::Attribute::unavailable(model::Source::Derived, "B/clk",
                                          "no SM clock or SM count to divide by"));
    return;
  }
  auto a = model::Attribute::measured(
      gbps.value.get<double>() * *ns / sms, "B/clk",
      key.str() + " x ns per SM cycle / SMs (" + Context::ns_method(conditions) + ")",
      gbps.confidence.value_or(0));
  a.source = model::Source::Derived;
  a.interval = model::scaled(gbps.interval, *ns / sms);
  a.evidence = {{"gbps", gbps.value}, {"nsPerCycle", *ns}, {"sms", sms}};
  ctx.put(element_, per_sm_key, std::move(a));
}

}  // namespace gputopo::discovery
