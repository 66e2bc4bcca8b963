#include <algorithm>
#include <optional>
#include <set>

#include "discovery/context.hpp"
#include "discovery/discovery_options.hpp"
#include "discovery/measure.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/registry.hpp"
#include "discovery/sm_groups.hpp"

namespace gputopo::discovery {
namespace {

using SmGroups = std::vector<std::vector<int>>;

// What each of the two SMs warms, as a share of a segment: together more than one segment holds
// (1.1), but the half of each array that a hashed L2 homes in the other segment leaves each
// segment at 0.825 where the two SMs load through different ones. (On an H100, 0.75 each
// evicted the reference's lines either way: to the far segment when the SMs share one, to device
// memory when they do not.)
constexpr double kWarmShare = 0.55;
// A's miss share must rise by half its loads; where a round's rises fall into two clusters at
// least kMinGap apart, by the middle of that gap. Crowding alone costs part of A's oldest lines:
// on an H200 in a whole --depth full run, 0.45-0.49 from SMs of the other segment against
// 0.90-0.94 from SMs of its own (0 and 1 on the H100, and in runs of the probe alone). Where no
// rise reaches half, a clean split (undisturbed below the gap, significantly disturbed above)
// decides, and its cut holds for later rounds: an L2 of few ways loses only part of A's lines
// to an SM of its own segment.
constexpr double kMinEffect = 0.5;
constexpr double kMinGap = 0.25;

// The units whose SMs are taken to load through one segment, and what they are: the GPCs found
// and the SMs no GPC holds in the units that ran together, else the TPCs, else single SMs.
struct Units {
  SmGroups units;
  std::size_t gpcs = 0;  // the first `gpcs` units are the GPCs of compute.gpcCount's evidence
  std::string kind;
};

Units units_of(const Context& ctx) {
  const int sms = ctx.info().sm_count();
  Units u;
  const model::Topology& topology = ctx.topology();
  u.units = topology.gpc_sms();
  u.gpcs = u.units.size();
  u.kind = "GPC";
  if (u.units.empty()) {
    u.units = topology.tpc_sms();
    u.kind = u.units.empty() ? "SM" : "TPC";
  }
  std::set<int> placed;
  for (const auto& g : u.units) placed.insert(g.begin(), g.end());
  for (const auto& g : topology.loose_units)
    if (std::none_of(g.begin(), g.end(), [&](int s) { return placed.count(s) > 0; })) {
      u.units.push_back(g);
      placed.insert(g.begin(), g.end());
    }
  for (int s = 0; s < sms; ++s)
    if (!placed.count(s)) u.units.push_back({s});
  return u;
}

// Which L2 segment each SM loads through (the near one): one SM of each GPC (else TPC, else SM)
// is grouped with the others by two-SM interference in the L2, each side warming three quarters
// of a segment. SMs of one segment evict each other's lines; SMs of two do not.
class L2SegmentOfSmProbe final : public Probe {
 public:
  // The TPCs and GPCs are read from the topology, whose levels those two attributes state.
  L2SegmentOfSmProbe() : Probe("l2Segments", {}) {
    declare({{"l2", &keys::segmentSize},
             {"l2", &keys::segmentCount},
             {"l2", &keys::lineSize},
             compute(keys::tpcCount),
             compute(keys::gpcCount)},
            {compute(keys::nearL2Segments)});
  }

  void run(Context& ctx) override {
    auto fail = [&](const std::string& why) {
      ctx.put_compute(keys::nearL2Segments,
                      model::Attribute::unavailable(model::Source::Measured, "", why));
    };
    // Where the count lies between two fractions, the tests warm shares of the larger and the
    // groups found are checked against both counts.
    const SegmentSpan segment = segment_span(ctx);
    if (!segment.measured) return fail("needs the L2 segment count: " + segment.why);
    if (segment.established && segment.fewest == 1) {
      auto one =
          model::Attribute::measured(1, "", "one L2 segment: every SM loads through it",
                                     ctx.get("l2", keys::segmentCount)->confidence.value_or(0));
      one.source = model::Source::Derived;
      return ctx.put_compute(keys::nearL2Segments, one);
    }
    std::vector<int> counts{segment.fewest};
    if (!segment.established) counts.push_back(segment.fewest + 1);
    const Input line = ctx.input("l2", keys::lineSize);
    const std::uint32_t stride = line ? static_cast<std::uint32_t>(*line.value) : 128;
    const Units u = units_of(ctx);
    if (ctx.options().depth != Depth::Full)
      return fail("not measured at --depth quick: " + std::to_string(u.units.size()) +
                  " or more two-SM tests warming an L2 segment each (--depth full)");
    SmGroupsSpec spec;
    spec.space = device::Space::L2;
    spec.bytes = round_up(static_cast<std::uint64_t>(segment.largest * kWarmShare), stride);
    spec.min_effect = kMinEffect;
    spec.min_gap = kMinGap;
    spec.stride = stride;
    for (const auto& unit : u.units) spec.sms.push_back(unit.front());
    const SmGroupsFound found = group_sms_by_interference(ctx, spec);
    put_result(ctx, u, spec, found, counts,
               line ? std::string() : "line size taken as 128 B: " + line.why);
  }

 private:
  static void put_result(Context& ctx, const Units& u, const SmGroupsSpec& spec,
                         const SmGroupsFound& found, const std::vector<int>& counts,
                         const std::string& weaker) {
    std::vector<model::Json> of_sm(static_cast<std::size_t>(ctx.info().sm_count()), nullptr);
    std::vector<int> of_unit(u.units.size(), -1);
    for (std::size_t g = 0; g < found.groups.size(); ++g)
      for (const int rep : found.groups[g])
        for (std::size_t k = 0; k < u.units.size(); ++k)
          if (u.units[k].front() == rep) of_unit[k] = static_cast<int>(g);
    std::vector<std::optional<int>> segment_of(of_sm.size());
    for (std::size_t k = 0; k < u.units.size(); ++k)
      for (const int s : u.units[k]) {
        of_sm[static_cast<std::size_t>(s)] = of_unit[k];
        if (of_unit[k] >= 0) segment_of[static_cast<std::size_t>(s)] = of_unit[k];
      }
    model::set_segment_of_sm(ctx.topology(), segment_of);
    model::Json evidence = {{"segmentOfSm", of_sm},         {"testedSms", spec.sms},
                            {"groups", found.groups},       {"units", u.kind},
                            {"arrayBytes", spec.bytes},     {"strideBytes", spec.stride},
                            {"decisions", found.decisions}, {"tests", tests_json(found.tests)}};
    if (u.gpcs > 0)
      evidence["segmentOfGpc"] =
          std::vector<int>(of_unit.begin(), of_unit.begin() + static_cast<long>(u.gpcs));
    const auto n = static_cast<int>(found.groups.size());
    const bool agrees = std::find(counts.begin(), counts.end(), n) != counts.end();
    const double confidence = agrees ? 1.0 - found.worst_p : 0.5 * (1.0 - found.worst_p);
    auto a = model::Attribute::measured(
        n, "",
        "two-SM interference in the L2: one SM of each " + u.kind +
            " and a reference SM each warm 0.55 of a segment; a significant rise of the "
            "reference's misses (by half its loads, past the widest gap between the round's "
            "rises, or past a clean split of undisturbed and disturbed tests, which holds for "
            "later rounds) "
            "puts both in one segment, "
            "round after round; the other SMs of a " +
            u.kind + " follow its tested SM",
        confidence);
    a.evidence = std::move(evidence);
    std::string reason = weaker;
    if (!agrees)
      reason += std::string(reason.empty() ? "" : "; ") + std::to_string(n) +
                " groups of SMs sharing a segment, but the near step gives " +
                std::to_string(counts.front()) +
                (counts.size() > 1 ? " or " + std::to_string(counts.back()) : "") + " segments";
    a.reason = reason;
    ctx.put_compute(keys::nearL2Segments, std::move(a));
  }
};

}  // namespace

// The L2 segment each SM loads through, by two-SM interference between one SM of each GPC
//.
GPUTOPO_REGISTER_PROBE(Family::Layout, 20, Made::Once,
                       [](const Site&) { return std::make_unique<L2SegmentOfSmProbe>(); });

}  // namespace gputopo::discovery
