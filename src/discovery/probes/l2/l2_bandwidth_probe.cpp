#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"
#include "discovery/stream_probe.hpp"

namespace gputopo::discovery {
namespace {

// A half, three quarters and all of a segment: streamed by the whole GPU, a buffer of up to a
// segment stays in L2 (on the H100 reads peaked at a half or three quarters, writes grew with the
// buffer: 3.88-3.92 TB/s at a half, 4.00-4.05 at three quarters).
Buffers l2_buffers(const Context& ctx) {
  const auto& info = ctx.info();
  const SegmentSpan segment = segment_span(ctx);
  double span = 0;
  std::string why = "a half, three quarters and all of an L2 segment";
  if (segment.measured) {
    span = segment.largest;
    if (!segment.established)
      why =
          "a half, three quarters and all of the larger of the two segments the measured step "
          "lies between (segment count not established)";
  } else if (info.l2_bytes() > 0) {
    span = static_cast<double>(info.l2_bytes()) / 2;
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

}  // namespace

// Read and write bandwidth of a buffer inside L2.
GPUTOPO_REGISTER_PROBE(Family::L2, 70, Made::Once, [](const Site&) -> std::unique_ptr<Probe> {
  constexpr std::array streams{Stream{device::StreamKind::Read},
                               Stream{device::StreamKind::Read, device::StreamSharing::Shared},
                               Stream{device::StreamKind::Write}};
  return std::make_unique<StreamProbe>(
      "l2", device::Space::L2, streams, l2_buffers,
      std::vector<Finding>{{"l2", &keys::segmentSize}, {"l2", &keys::segmentCount}});
});

}  // namespace gputopo::discovery
