#include "discovery/stream_probe.hpp"

#include <algorithm>
#include <cmath>

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
  return b;
}

void StreamProbe::run(Context& ctx) {
  const Buffers buffers = buffers_(ctx);
  for (const auto kind : kinds_) {
    const std::string key = std::string(device::to_string(kind)) + "Bandwidth";
    if (buffers.bytes.empty()) {
      ctx.put(element_, key,
              model::Attribute::unavailable(model::Source::Measured, "GB/s", buffers.why));
      continue;
    }
    std::optional<Bandwidth> best;
    std::optional<device::RunConditions> conditions;
    std::string refused;
    model::Json by_buffer = model::Json::array();
    ctx.expect_batches(static_cast<int>(buffers.bytes.size()));
    for (const auto bytes : buffers.bytes) {
      device::StreamRequest request;
      request.kind = kind;
      request.bytes = bytes;
      request.repeats = 5;
      if (space_ != device::Space::L2) request.space = space_;
      device::StreamResult result;
      try {
        result = ctx.stream(request);
      } catch (const device::Error& e) {
        if (e.kind() != device::Error::Kind::BadRequest) throw;
        refused = e.what();
        continue;
      }
      const auto b = bandwidth_of(result, bytes);
      if (!b) continue;
      by_buffer.push_back({{"bufferBytes", bytes}, {"gbps", b->gbps}});
      if (!best || b->gbps > best->gbps) {
        best = b;
        conditions = result.conditions;
      }
    }
    if (!best) {
      const std::string why =
          refused.empty() ? "the stream returned no timing" : "the device refused it: " + refused;
      ctx.put(element_, key, model::Attribute::unavailable(model::Source::Measured, "GB/s", why));
      if (space_ != device::Space::L2)
        ctx.put(element_, per_sm_key(key),
                model::Attribute::unavailable(model::Source::Derived, "B/clk", why));
      continue;
    }
    auto a = model::Attribute::measured(
        best->gbps, "GB/s",
        "stream-" + std::string(device::to_string(kind)) + " (" + buffers.why +
            "): the fastest of a family of kernels (bytes per access, accesses in flight, "
            "blocks per SM, threads) and buffers, best of its repeats; bytes read plus bytes "
            "written per second",
        best->confidence);
    a.evidence = best->evidence;
    if (by_buffer.size() > 1) a.evidence["buffers"] = by_buffer;
    ctx.put(element_, key, a);
    if (space_ != device::Space::L2) put_per_sm(ctx, key, a, *conditions);
  }
}

void StreamProbe::put_per_sm(Context& ctx, const std::string& key, const model::Attribute& gbps,
                             const device::RunConditions& conditions) const {
  const auto ns = ctx.ns_per_cycle(conditions);
  const int sms = ctx.info().sm_count;
  const std::string per_sm_key = this->per_sm_key(key);
  if (!ns || sms < 1) {
    ctx.put(element_, per_sm_key,
            model::Attribute::unavailable(model::Source::Derived, "B/clk",
                                          "no SM clock or SM count to divide by"));
    return;
  }
  auto a = model::Attribute::measured(
      gbps.value.get<double>() * *ns / sms, "B/clk",
      key + " x ns per SM cycle / SMs (" + Context::ns_method(conditions) + ")",
      gbps.confidence.value_or(0));
  a.source = model::Source::Derived;
  a.evidence = {{"gbps", gbps.value}, {"nsPerCycle", *ns}, {"sms", sms}};
  ctx.put(element_, per_sm_key, std::move(a));
}

}  // namespace gputopo::discovery
