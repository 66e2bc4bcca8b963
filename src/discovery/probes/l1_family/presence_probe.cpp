#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/cluster.hpp"
#include "discovery/context.hpp"
#include "discovery/probes/l1_family/l1_family_probes.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

std::string cycles_text(double v) {
  std::ostringstream out;
  out.precision(5);
  out << v;
  return out.str();
}

// Whether the level a level-2 target's probes measured is a cache of its own or already the L2.
// Its latency probe times loads that miss the level in front; where nothing sits between that level
// and the L2, they are L2 hits and take the L2's near-hit latency, give or take the few cycles a
// space adds and the spread over SMs. Two latencies closer than the analysis library's level
// resolution (ClusterOptions::min_level_ratio: above the spread of one level over SMs, below the
// gap between distinct levels) are one level: the target is then absent, and every attribute its
// probes wrote is rewritten as not available with that reason, the measured value kept as
// evidence. Where the latencies are distinct levels, the comparison is added to the latency's
// evidence.
class PresenceProbe final : public Probe {
 public:
  explicit PresenceProbe(const Target& t) : Probe(probe_name(t, "presence"), {t.element}), t_(t) {
    // It rewrites every finding of its element when the cache is not there (no key: any key).
    declare({{t.element, &keys::latency}, {"l2", &keys::nearLatency}},
            {{t.element, &keys::latency}, {t.element, nullptr}});
  }

  void run(Context& ctx) override {
    const model::Attribute* own = ctx.get(t_.element, keys::latency);
    const model::Attribute* l2 = ctx.get("l2", keys::nearLatency);
    if (!own || !own->value.is_number() || !l2 || !l2->value.is_number()) return;
    const double mine = own->value.get<double>(), near = l2->value.get<double>();
    if (!(mine > 0 && near > 0)) return;
    const double resolution = analysis::ClusterOptions{}.min_level_ratio;
    const double ratio = std::max(mine, near) / std::min(mine, near);
    const model::Json comparison = {{"latencyCycles", mine},
                                    {"l2NearLatencyCycles", near},
                                    {"ratio", ratio},
                                    {"levelResolution", resolution}};
    if (ratio >= resolution) {
      model::Attribute latency = *own;
      if (!latency.evidence.is_object()) latency.evidence = model::Json::object();
      latency.evidence["comparedWithL2"] = comparison;
      ctx.put(t_.element, keys::latency, std::move(latency));
      return;
    }
    const std::string reason = t_.inner + " misses are served at the L2's latency (" +
                               cycles_text(mine) + " vs " + cycles_text(near) +
                               " cycles, one latency level): no " + t_.element;
    const auto found = ctx.findings().find(t_.element);
    if (found == ctx.findings().end()) return;
    const model::AttributeList measured = found->second;
    for (const auto& [key, was] : measured) {
      model::Attribute a = model::Attribute::unavailable(was.source, was.unit, reason);
      a.method = was.method;
      a.evidence = comparison;
      a.evidence["measuredValue"] = was.value;
      if (was.confidence) a.evidence["measuredConfidence"] = *was.confidence;
      if (!was.evidence.is_null()) a.evidence["measuredEvidence"] = was.evidence;
      if (const model::Key* k = model::key_named(key)) ctx.put(t_.element, *k, std::move(a));
    }
  }

 private:
  Target t_;
};

}  // namespace

// Latency against the L2's: a level-2 target served at the L2's latency is absent, and its
// attributes say so.
GPUTOPO_REGISTER_PROBE(Family::L1Family, 60, Made::PerTarget,
                       [](const Site& s) -> std::unique_ptr<Probe> {
                         if (s.target->level <= 1) return nullptr;
                         return std::make_unique<PresenceProbe>(*s.target);
                       });

}  // namespace gputopo::discovery
