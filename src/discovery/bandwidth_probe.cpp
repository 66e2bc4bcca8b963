#include <algorithm>
#include <functional>

#include "discovery/context.hpp"
#include "discovery/l2_dram_probes.hpp"
#include "discovery/l2_sweep.hpp"
#include "discovery/measure.hpp"

namespace gputopo::discovery {
namespace {

// The buffer for one element, and why it was chosen (or an empty size with the reason it cannot be
// chosen).
struct Buffer {
  std::uint64_t bytes = 0;
  std::string why;
};

// Streams with the backend's tuned launch shape (all SMs, 128-bit accesses) over a buffer that
// either fits in L2 or is far larger than it; one stream request per kind.
class BandwidthProbe final : public Probe {
 public:
  BandwidthProbe(std::string element, std::vector<device::StreamKind> kinds,
                 std::function<Buffer(const Context&)> buffer, std::vector<std::string> needs)
      : Probe(element + ".bandwidth", {element}, std::move(needs)),
        element_(std::move(element)),
        kinds_(std::move(kinds)),
        buffer_(std::move(buffer)) {}

  void run(Context& ctx) override {
    const Buffer buffer = buffer_(ctx);
    for (const auto kind : kinds_) {
      const std::string key = std::string(device::to_string(kind)) + "Bandwidth";
      if (buffer.bytes == 0) {
        ctx.put(element_, key,
                model::Attribute::unavailable(model::Source::Measured, "GB/s", buffer.why));
        continue;
      }
      device::StreamRequest request;
      request.kind = kind;
      request.bytes = buffer.bytes;
      request.repeats = 5;
      ctx.expect_batches(1);
      const auto result = ctx.stream(request);
      const auto b = bandwidth_of(result, buffer.bytes);
      if (!b) {
        ctx.put(element_, key,
                model::Attribute::unavailable(model::Source::Measured, "GB/s",
                                              "the stream returned no timing"));
        continue;
      }
      auto a = model::Attribute::measured(
          b->gbps, "GB/s",
          "stream-" + std::string(device::to_string(kind)) + " over " +
              std::to_string(buffer.bytes) + " B (" + buffer.why +
              "), median of the repeats; bytes read plus bytes written per second",
          b->confidence);
      a.evidence = b->evidence;
      ctx.put(element_, key, std::move(a));
    }
  }

 private:
  std::string element_;
  std::vector<device::StreamKind> kinds_;
  std::function<Buffer(const Context&)> buffer_;
};

// Half a segment: inside the near segment of every SM, so that the whole GPU streams from L2.
Buffer l2_buffer(const Context& ctx) {
  const auto& info = ctx.info();
  const Input segment = ctx.input("l2", "segmentSize");
  if (segment)
    return {round_up(static_cast<std::uint64_t>(*segment.value / 2), 4096), "half an L2 segment"};
  if (info.l2_bytes == 0) return {0, "the driver reports no L2 size"};
  return {round_up(info.l2_bytes / 4, 4096),
          "a quarter of the API L2 size (segment size not established)"};
}

// 64 times the L2, so that under 2 % of the traffic can hit in it; at most an eighth of device
// memory (a copy needs two buffers).
Buffer dram_buffer(const Context& ctx) {
  const auto& info = ctx.info();
  const std::uint64_t cap = info.global_memory_bytes / 8;
  const std::uint64_t want = std::max<std::uint64_t>(64 * info.l2_bytes, std::uint64_t{1} << 28);
  const std::uint64_t bytes = round_up(std::min(want, cap) / 4096 * 4096, 4096);
  if (bytes < 8 * std::max<std::uint64_t>(info.l2_bytes, 1))
    return {0, "device memory cannot hold a buffer 8 times the L2"};
  return {bytes, std::to_string(bytes / std::max<std::uint64_t>(info.l2_bytes, 1)) +
                     " times the API L2 size"};
}

// The theoretical peak (double data rate x memory clock x bus width) and the read bandwidth's
// share of it.
void put_peak(Context& ctx) {
  const auto& info = ctx.info();
  if (info.mem_clock_max_mhz <= 0 || info.memory_bus_width_bits <= 0) {
    ctx.put("dram", "peakBandwidth",
            model::Attribute::unavailable(model::Source::Derived, "GB/s",
                                          "the driver reports no memory clock or bus width"));
    return;
  }
  const double peak = 2.0 * info.mem_clock_max_mhz * 1e6 * info.memory_bus_width_bits / 8 / 1e9;
  auto p = model::Attribute::measured(
      peak, "GB/s", "2 (double data rate) x memory clock x bus width / 8, from the API", 1.0);
  p.source = model::Source::Derived;
  p.evidence = {{"memoryClockMhz", info.mem_clock_max_mhz},
                {"busWidthBits", info.memory_bus_width_bits}};
  ctx.put("dram", "peakBandwidth", p);
  const auto* read = ctx.get("dram", "readBandwidth");
  if (!read || !read->available()) return;
  auto f =
      model::Attribute::measured(100.0 * read->value.get<double>() / peak, "%",
                                 "readBandwidth / peakBandwidth", read->confidence.value_or(0));
  f.source = model::Source::Derived;
  ctx.put("dram", "readFractionOfPeak", f);
}

class DramBandwidthProbe final : public Probe {
 public:
  explicit DramBandwidthProbe(std::vector<std::string> needs)
      : Probe("dram.bandwidth", {"dram"}, needs),
        streams_("dram",
                 {device::StreamKind::Read, device::StreamKind::Write, device::StreamKind::Copy},
                 dram_buffer, needs) {}

  void run(Context& ctx) override {
    streams_.run(ctx);
    put_peak(ctx);
  }

 private:
  BandwidthProbe streams_;
};

}  // namespace

std::unique_ptr<Probe> make_l2_bandwidth_probe(std::vector<std::string> needs) {
  return std::make_unique<BandwidthProbe>(
      "l2", std::vector{device::StreamKind::Read, device::StreamKind::Write}, l2_buffer,
      std::move(needs));
}

std::unique_ptr<Probe> make_dram_bandwidth_probe(std::vector<std::string> needs) {
  return std::make_unique<DramBandwidthProbe>(std::move(needs));
}

}  // namespace gputopo::discovery
