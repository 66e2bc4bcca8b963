#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "device/requests.hpp"
#include "device/results.hpp"
#include "discovery/context.hpp"
#include "discovery/probe.hpp"

// Bandwidth by streams: the probe every element's bandwidth is measured with.
namespace gputopo::discovery {

// The buffers a stream tries for one element (the fastest wins), and why they were chosen (or none,
// with the reason none can be chosen).
struct Buffers {
  std::vector<std::uint64_t> bytes;
  std::string why;
};

// Bandwidth in GB/s from a stream result: the best repeat, with the repeats' spread as confidence.
struct Bandwidth {
  double gbps = 0;
  double confidence = 0;
  model::Interval interval;  // analysis::best_of_interval of the repeats
  model::Json evidence;
};
std::optional<Bandwidth> bandwidth_of(const device::StreamResult& r, std::uint64_t bytes);

// One stream of a probe: what it does, and whether every block reads the whole buffer.
struct Stream {
  device::StreamKind kind = device::StreamKind::Read;
  device::StreamSharing sharing = device::StreamSharing::Own;
};

// Streams over buffers of the level (the backend tunes the kernel and the launch shape for each;
// the fastest buffer wins), one request per stream and buffer, all SMs at once. `space` is the path
// (L2 for device memory and L2, L1 or shared for the SMs' own memories, where `bytes` is one
// block's slice).
class StreamProbe final : public Probe {
 public:
  // `reads`: the findings `buffers` reads.
  StreamProbe(std::string element, device::Space space, std::span<const Stream> streams,
              std::function<Buffers(const Context&)> buffers, std::vector<Finding> reads)
      : Probe(element + ".bandwidth", {element}),
        element_(std::move(element)),
        space_(space),
        streams_(streams.begin(), streams.end()),
        buffers_(std::move(buffers)) {
    declare(std::move(reads), writes_of(element_, streams));
  }

  // The findings `streams` write for `element`.
  static std::vector<Finding> writes_of(const std::string& element,
                                        std::span<const Stream> streams);

  void run(Context& ctx) override;

 private:
  // The fastest buffer of a stream kind, or why there is none.
  struct Best {
    std::optional<Bandwidth> bandwidth;
    std::optional<device::RunConditions> conditions;
    std::string refused;  // what the device said when it refused a stream
    model::Json by_buffer;
  };
  Best fastest(Context& ctx, const Stream& stream, const Buffers& buffers) const;

  void put_fastest_read(Context& ctx, const model::Attribute* own,
                        const model::Attribute* shared) const;

  // The same bandwidth in bytes per SM clock per SM.
  void put_per_sm(Context& ctx, const model::Key& key, const model::Key& per_sm_key,
                  const model::Attribute& gbps, const device::RunConditions& conditions) const;

  std::string element_;
  device::Space space_;
  std::vector<Stream> streams_;
  std::function<Buffers(const Context&)> buffers_;
};

}  // namespace gputopo::discovery
