#include "discovery/context.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

// Stores into a buffer that fits the L2 against stores to device memory. A write-through L2
// passes every store on, so stores to a resident buffer run no faster than device memory takes
// writes; clearly faster (by kWriteBackRatio) means the L2 keeps written lines: write-back.
constexpr double kWriteBackRatio = 1.15;

class L2WritePolicyProbe final : public Probe {
 public:
  L2WritePolicyProbe() : Probe("l2.writePolicy", {"l2"}) {
    declare({{"l2", &keys::writeBandwidth}, {"dram", &keys::writeBandwidth}},
            {{"l2", &keys::writePolicy}});
  }

  void run(Context& ctx) override {
    const Input l2 = ctx.input("l2", keys::writeBandwidth);
    const Input dram = ctx.input("dram", keys::writeBandwidth);
    if (!l2 || !dram) {
      ctx.put("l2", keys::writePolicy,
              model::Attribute::unavailable(
                  model::Source::Derived, "",
                  "needs the L2 and device-memory write bandwidths: " + (!l2 ? l2.why : dram.why)));
      return;
    }
    const double ratio = *l2.value / *dram.value;
    const model::Json evidence = {{"l2WriteGBps", *l2.value},
                                  {"dramWriteGBps", *dram.value},
                                  {"ratio", ratio},
                                  {"writeBackRatio", kWriteBackRatio}};
    if (ratio < kWriteBackRatio) {
      auto a = model::Attribute::unavailable(
          model::Source::Derived, "",
          "not established: stores to an L2-resident buffer run at " + std::to_string(ratio) +
              " x the device-memory write bandwidth: write-through, or an L2 whose write path is "
              "no faster than device memory");
      a.evidence = evidence;
      ctx.put("l2", keys::writePolicy, a);
      return;
    }
    const double confidence =
        std::min(ctx.get("l2", keys::writeBandwidth)->confidence.value_or(0),
                 ctx.get("dram", keys::writeBandwidth)->confidence.value_or(0));
    auto a = model::Attribute::measured(
        "write-back", "",
        "stores to a buffer inside the L2 against stores to device memory (write bandwidths): "
        "faster by more than " +
            std::to_string(kWriteBackRatio) + " x, so the L2 does not pass every store on",
        confidence);
    a.source = model::Source::Derived;
    a.evidence = evidence;
    ctx.put("l2", keys::writePolicy, a);
  }
};

}  // namespace

// The L2's write policy from its write bandwidth against device memory's.
GPUTOPO_REGISTER_PROBE(Family::Geometry, 40, Made::Once,
                       [](const Site&) { return std::make_unique<L2WritePolicyProbe>(); });

}  // namespace gputopo::discovery
