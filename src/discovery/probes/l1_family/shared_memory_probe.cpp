#include <algorithm>

#include "discovery/context.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"
#include "model/vendor.hpp"

namespace gputopo::discovery {
namespace {

// Shared memory: the latency of a warm chase in it (its size is the API's, in the info report).
class SharedMemoryProbe final : public Probe {
 public:
  explicit SharedMemoryProbe(const std::string& element)
      : Probe(element + ".latency", {element}), element_(element) {
    declare({}, {{element, &keys::latency}, {element, &keys::latencyNs}});
  }

  void run(Context& ctx) override {
    constexpr std::uint32_t kStride = 32;
    const std::vector<std::uint64_t> footprints{2048, 4096};
    device::ChaseBatch batch;
    std::vector<std::uint64_t> chained;
    for (const auto bytes : footprints) {
      batch.requests.push_back(chain_request(device::Space::Shared, bytes, kStride, 1));
      chained.push_back(bytes);
    }
    batch.requests.push_back(
        chase_request(device::Space::Shared, footprints.back(), kStride, 1, 1024));
    ctx.expect_batches(1);
    const auto result = ctx.chase(batch);
    const auto chains = std::span(result.results).first(2);
    const auto latency = chain_latency(chains, chained);
    if (!latency) {
      ctx.put(element_, keys::latency,
              model::Attribute::unavailable(model::Source::Measured, "cycles",
                                            "the chains returned no timing"));
      return;
    }
    const auto& per_load = result.results.back();
    const auto loads = per_load_evidence(latencies(per_load), per_load.overhead_cycles);
    put_chain_latency(ctx, element_, kLatencyKeys, *latency, result.conditions,
                      "dependent chain of shared-window addresses timed as a whole (cycles / "
                      "loads) over 2 and 4 KiB at 32 B stride; confidence: agreement of the "
                      "footprints and the share of per-load samples in one level",
                      loads.value("dominantLevelShare", 0.0));
    add_evidence(ctx, element_, keys::latency, "perLoad", loads);
  }

 private:
  std::string element_;
};

}  // namespace

// Shared memory (AMD: the LDS) under its element name: size from the API, latency measured
//.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 120, Made::Once, [](const Site& s) {
  return std::make_unique<SharedMemoryProbe>(std::string(model::shared_memory_element(s.info)));
});

}  // namespace gputopo::discovery
