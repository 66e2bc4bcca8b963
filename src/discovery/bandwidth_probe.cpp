#include <algorithm>
#include <functional>

#include "discovery/context.hpp"
#include "discovery/l2_dram_probes.hpp"
#include "discovery/l2_sweep.hpp"
#include "discovery/measure.hpp"
#include "model/dram_peak.hpp"

namespace gputopo::discovery {
namespace {

// The buffers a stream tries for one element (the fastest wins), and why they were chosen (or none,
// with the reason none can be chosen).
struct Buffers {
  std::vector<std::uint64_t> bytes;
  std::string why;
};

// Streams over buffers of the level (the backend tunes the kernel and the launch shape for each;
// the fastest buffer wins), one request per kind and buffer, all SMs at once. `space` is the path
// (L2 for device memory and L2, L1 or shared for the SMs' own memories, where `bytes` is one
// block's slice).
class BandwidthProbe final : public Probe {
 public:
  BandwidthProbe(std::string element, device::Space space, std::vector<device::StreamKind> kinds,
                 std::function<Buffers(const Context&)> buffers, std::vector<std::string> needs)
      : Probe(element + ".bandwidth", {element}, std::move(needs)),
        element_(std::move(element)),
        space_(space),
        kinds_(std::move(kinds)),
        buffers_(std::move(buffers)) {}

  void run(Context& ctx) override {
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

 private:
  // "readBandwidth" -> "readBytesPerClkPerSm".
  static std::string per_sm_key(const std::string& key) {
    return key.substr(0, key.size() - std::string("Bandwidth").size()) + "BytesPerClkPerSm";
  }

  // The same bandwidth in bytes per SM clock per SM.
  void put_per_sm(Context& ctx, const std::string& key, const model::Attribute& gbps,
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

  std::string element_;
  device::Space space_;
  std::vector<device::StreamKind> kinds_;
  std::function<Buffers(const Context&)> buffers_;
};

// A half, three quarters and all of a segment: streamed by the whole GPU, a buffer of up to a
// segment stays in L2 (on the H100 reads peaked at a half or three quarters, writes grew with the
// buffer: 3.88-3.92 TB/s at a half, 4.00-4.05 at three quarters).
Buffers l2_buffers(const Context& ctx) {
  const auto& info = ctx.info();
  const Input segment = ctx.input("l2", "segmentSize");
  double span = 0;
  std::string why = "a half, three quarters and all of an L2 segment";
  if (segment) {
    span = *segment.value;
  } else if (info.l2_bytes > 0) {
    span = static_cast<double>(info.l2_bytes) / 2;
    why =
        "an eighth, a quarter and three eighths of the API L2 size (segment size not "
        "established)";
  } else {
    return {{}, "the driver reports no L2 size"};
  }
  Buffers b{{}, why};
  for (const double share : {0.5, 0.75, 1.0})
    b.bytes.push_back(round_up(static_cast<std::uint64_t>(span * share), 4096));
  return b;
}

// 32 times the L2, so that a stream past it finds at most 3 % of its data in L2 even if the L2 kept
// a whole L2's worth; at most an eighth of device memory (a copy needs two buffers).
Buffers dram_buffers(const Context& ctx) {
  const auto& info = ctx.info();
  const std::uint64_t cap = info.global_memory_bytes / 8;
  const std::uint64_t want = std::max<std::uint64_t>(32 * info.l2_bytes, std::uint64_t{1} << 28);
  const std::uint64_t bytes = round_up(std::min(want, cap) / 4096 * 4096, 4096);
  if (bytes < 8 * std::max<std::uint64_t>(info.l2_bytes, 1))
    return {{}, "device memory cannot hold a buffer 8 times the L2"};
  return {
      {bytes},
      std::to_string(bytes / std::max<std::uint64_t>(info.l2_bytes, 1)) + " times the API L2 size"};
}

// Per block an eighth of the L1 (at most four blocks per SM stay well inside it); where the L1 size
// is not established, an eighth of the shared memory per SM the driver reports (L1 and shared
// memory share one array on every supported GPU, and the L1 is at least as large at carve-out 0).
Buffers l1_buffers(const Context& ctx) {
  const Input size = ctx.input("l1", "size");
  if (!size) {
    const std::uint64_t pool = ctx.info().shared_per_sm_bytes;
    if (pool < 32 * 1024) return {{}, "needs the L1 size: " + size.why};
    return {{pool / 8 / 4096 * 4096},
            "every block reads an eighth of the shared memory per SM (API) through L1, again and "
            "again (L1 size not established)"};
  }
  return {{round_up(static_cast<std::uint64_t>(*size.value / 8), 4096)},
          "every block reads an eighth of the L1 through L1, again and again"};
}

// Per block 32 KiB of shared memory (an eighth of the opt-in limit where that is smaller).
Buffers shared_buffers(const Context& ctx) {
  const std::uint64_t optin = ctx.info().shared_per_block_optin_bytes;
  if (optin < 4096) return {{}, "the driver reports no shared memory per block"};
  return {{std::min<std::uint64_t>(32 * 1024, optin / 8 / 16 * 16)},
          "every block reads its own shared memory, again and again"};
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
  const double peak = model::peak_dram_gbps(info.mem_clock_max_mhz, info.memory_bus_width_bits);
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
        streams_("dram", device::Space::L2,
                 {device::StreamKind::Read, device::StreamKind::Write, device::StreamKind::Copy},
                 dram_buffers, needs) {}

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
      "l2", device::Space::L2, std::vector{device::StreamKind::Read, device::StreamKind::Write},
      l2_buffers, std::move(needs));
}

std::unique_ptr<Probe> make_l1_bandwidth_probe(std::vector<std::string> needs) {
  return std::make_unique<BandwidthProbe>(
      "l1", device::Space::L1, std::vector{device::StreamKind::Read}, l1_buffers, std::move(needs));
}

std::unique_ptr<Probe> make_shared_bandwidth_probe(std::vector<std::string> needs) {
  return std::make_unique<BandwidthProbe>("shared", device::Space::Shared,
                                          std::vector{device::StreamKind::Read}, shared_buffers,
                                          std::move(needs));
}

std::unique_ptr<Probe> make_dram_bandwidth_probe(std::vector<std::string> needs) {
  return std::make_unique<DramBandwidthProbe>(std::move(needs));
}

}  // namespace gputopo::discovery
