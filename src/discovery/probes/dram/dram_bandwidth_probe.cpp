#include <algorithm>
#include <array>

#include "discovery/measure.hpp"
#include "discovery/registry.hpp"
#include "discovery/stream_probe.hpp"
#include "model/dram_peak.hpp"

namespace gputopo::discovery {
namespace {

// 32 times the L2, so that a stream past it finds at most 3 % of its data in L2 even if the L2 kept
// a whole L2's worth; at most an eighth of device memory (a copy needs two buffers).
Buffers dram_buffers(const Context& ctx) {
  const auto& info = ctx.info();
  const std::uint64_t cap = info.global_memory_bytes() / 8;
  const std::uint64_t want = std::max<std::uint64_t>(32 * info.l2_bytes(), std::uint64_t{1} << 28);
  const std::uint64_t bytes = round_up(std::min(want, cap) / 4096 * 4096, 4096);
  if (bytes < 8 * std::max<std::uint64_t>(info.l2_bytes(), 1))
    return {{}, "device memory cannot hold a buffer 8 times the L2"};
  return {{bytes},
          std::to_string(bytes / std::max<std::uint64_t>(info.l2_bytes(), 1)) +
              " times the API L2 size"};
}

// The read bandwidth's share of the theoretical peak (double data rate x memory clock x bus width,
// from the API; the peak itself is in the info report).
void put_fraction_of_peak(Context& ctx) {
  const auto& info = ctx.info();
  if (info.mem_clock_max_mhz() <= 0 || info.memory_bus_width_bits() <= 0) return;
  const double peak = model::peak_dram_gbps(info.mem_clock_max_mhz(), info.memory_bus_width_bits());
  const auto* read = ctx.get("dram", keys::readBandwidth);
  if (!read || !read->available()) return;
  auto f =
      model::Attribute::measured(100.0 * read->value.get<double>() / peak, "%",
                                 "readBandwidth / peakBandwidth", read->confidence.value_or(0));
  f.source = model::Source::Derived;
  f.interval = model::scaled(read->interval, 100.0 / peak);
  ctx.put("dram", keys::readFractionOfPeak, f);
}

constexpr std::array kKinds{Stream{device::StreamKind::Read}, Stream{device::StreamKind::Write},
                            Stream{device::StreamKind::Copy}};

class DramBandwidthProbe final : public Probe {
 public:
  DramBandwidthProbe()
      : Probe("dram.bandwidth", {"dram"}),
        streams_("dram", device::Space::L2, kKinds, dram_buffers, {}) {
    auto writes = StreamProbe::writes_of("dram", kKinds);
    writes.push_back({"dram", &keys::readFractionOfPeak});
    declare({}, std::move(writes));
  }

  void run(Context& ctx) override {
    streams_.run(ctx);
    put_fraction_of_peak(ctx);
  }

 private:
  StreamProbe streams_;
};

}  // namespace

// Read, write and copy bandwidth of a buffer far past the L2, and the theoretical peak
//.
GPUTOPO_REGISTER_PROBE(Family::Dram, 20, Made::Once,
                       [](const Site&) { return std::make_unique<DramBandwidthProbe>(); });

}  // namespace gputopo::discovery
