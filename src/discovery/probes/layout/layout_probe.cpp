#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/cluster_occupancy.hpp"
#include "analysis/layout_inference.hpp"
#include "discovery/context.hpp"
#include "discovery/discovery_options.hpp"
#include "discovery/probes/layout/gpc_port.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

using analysis::SmGroups;

// Thread-block clusters hold at most 16 blocks (non-portable size) on every GPU that has them so
// far; a larger size is not asked for: the occupancy query does not refuse it, only the launch
// does.
constexpr int kMaxClusterSize = 16;
// Per-SM latencies closer than this many standard errors of their difference count as equal.
constexpr double kEqualSigmas = 4;
// Lines the GPC port test reads: 16 MiB, L2-resident and spread over every slice (with 512 KiB
// an H200 read faster than its GPC ports, 1,560-1,790 GB/s a GPC against 1,250-1,270).
constexpr std::uint64_t kPortLines = 131072;

model::Json groups_json(const SmGroups& groups) {
  model::Json j = model::Json::array();
  for (const auto& g : groups) j.push_back(g);
  return j;
}

// The SMs no cluster of 3 or more held, in units that ran together (a TPC, from clusters of 2):
// each may belong to a GPC found or form one of its own.
SmGroups loose_units(int sms, const std::vector<SmGroups>& by_size,
                     const std::vector<int>& uncovered) {
  const auto loose = analysis::gpcs_from_clusters(sms, by_size, 2);
  SmGroups units;
  for (const auto& g : loose.gpcs)
    if (std::all_of(g.begin(), g.end(), [&](int sm) {
          return std::find(uncovered.begin(), uncovered.end(), sm) != uncovered.end();
        }))
      units.push_back(g);
  // An uncovered SM whose pair partner a larger cluster held stands as a unit of its own.
  for (int sm : uncovered)
    if (std::none_of(units.begin(), units.end(), [&](const std::vector<int>& u) {
          return std::find(u.begin(), u.end(), sm) != u.end();
        }))
      units.push_back({sm});
  std::sort(units.begin(), units.end());
  return units;
}

// Where the clusters-at-once counts put each loose unit.
struct Placed {
  SmGroups gpcs;     // the GPCs found, with the units the counts place in one of them
  SmGroups apart;    // units that stand apart from every GPC found in every matching structure
  SmGroups unknown;  // units the counts cannot place
  std::set<int> placed_by_counts;
};

Placed place(const SmGroups& found_gpcs, const SmGroups& units, const analysis::OccupancyFit& fit) {
  const int found = static_cast<int>(found_gpcs.size());
  Placed out{found_gpcs, {}, {}, {}};
  auto& [gpcs, apart, unknown, placed_by_counts] = out;
  for (std::size_t u = 0; u < units.size(); ++u) {
    const auto& t = fit.targets_of_loose[u];
    if (fit.complete && t.size() == 1 && t.front() < found) {
      auto& g = gpcs[static_cast<std::size_t>(t.front())];
      g.insert(g.end(), units[u].begin(), units[u].end());
      placed_by_counts.insert(units[u].begin(), units[u].end());
      std::sort(g.begin(), g.end());
    } else if (fit.complete && found > 0 && !t.empty() &&
               std::all_of(t.begin(), t.end(), [&](int x) { return x >= found; })) {
      apart.push_back(units[u]);
    } else {
      unknown.push_back(units[u]);
    }
  }
  return out;
}

model::Json occupancy_evidence(const analysis::OccupancyFit& fit) {
  model::Json evidence;
  evidence["occupancyFit"] = {
      {"model",
       "a cluster of k blocks, one per SM, runs on k SMs of one placement unit (a GPC, or a "
       "TPC no cluster combines with others); a unit of s SMs holds floor(s / k) at once"},
      {"structuresTried", fit.tried},
      {"complete", fit.complete},
      {"structuresMatching", fit.matching_count},
      {"matching", model::Json::array()}};
  for (std::size_t i = 0; i < fit.matching.size() && i < 8; ++i) {
    model::Json sizes_of = model::Json::array();
    for (const auto& u : fit.matching[i].units) sizes_of.push_back(u.size());
    evidence["occupancyFit"]["matching"].push_back(sizes_of);
  }
  return evidence["occupancyFit"];
}

// Units as "124-125, 126-127": a run of consecutive SMs with "-", others joined with "+" ("0+2").
std::string listed(const SmGroups& list) {
  std::string out;
  for (const auto& u : list) {
    if (!out.empty()) out += ", ";
    // A run of consecutive SMs as "124-125", others joined with "+": "0+2".
    const bool run = u.back() - u.front() + 1 == static_cast<int>(u.size());
    out += std::to_string(u.front());
    if (u.size() > 1 && run) {
      out.push_back('-');
      out.append(std::to_string(u.back()));
    } else {
      for (std::size_t i = 1; i < u.size(); ++i) {
        out.push_back('+');
        out.append(std::to_string(u[i]));
      }
    }
  }
  return out;
}

// Why the GPCs are not all known, with the interval of their count (into evidence).
std::string unplaced_reason(std::size_t uncovered, const SmGroups& units, const Placed& placed,
                            const analysis::OccupancyFit& fit, const std::vector<int>& sizes,
                            int found, model::Json& evidence) {
  const auto& apart = placed.apart;
  const auto& unknown = placed.unknown;
  std::string why = std::to_string(uncovered) + " SMs in " + std::to_string(units.size()) +
                    " units that ran together (" + listed(units) +
                    ") never shared a cluster of 3 or more with other SMs";
  int upper = found;
  if (!apart.empty()) {
    // A unit apart is either a TPC of a GPC found that clusters never combine with the rest,
    // or a GPC of its own: cluster signals cannot tell these apart.
    upper = found + fit.most_new_units;
    why += "; the clusters-at-once counts of sizes " + std::to_string(sizes.front()) + " to " +
           std::to_string(sizes.back()) + " are reproduced only with " + listed(apart) +
           " standing apart from the " + std::to_string(found) +
           " GPCs found (joined to any of them, a GPC would hold more clusters of some size)";
    why +=
        ", so each is a TPC of a GPC found that clusters never use with the rest, or part "
        "of a GPC of its own; cluster signals cannot tell which";
  }
  if (!unknown.empty()) {
    upper += static_cast<int>(unknown.size());
    why += fit.matching.empty()
               ? "; no structure of the GPCs found and these units reproduces the "
                 "clusters-at-once counts"
               : std::string("; the clusters-at-once counts do not place ") + listed(unknown);
  }
  why +=
      ": between " + std::to_string(std::max(found, 1)) + " and " + std::to_string(upper) + " GPCs";
  evidence["gpcCountInterval"] = {std::max(found, 1), upper};
  return why;
}

// Thread-block clusters run on SMs of one GPC: the co-resident SM groups of every cluster size
// from 2 up to the largest the GPU launches are joined into GPCs. TPCs are the grouping (cluster
// pairs, or consecutive SM ids) whose SMs read the same per-SM L2 latency (l2.smLatency).
class LayoutProbe final : public Probe {
 public:
  LayoutProbe() : Probe("layout", {}) {
    declare({{"l2", &keys::nearLatencyBySm}}, {compute(keys::tpcCount), compute(keys::smsPerTpc),
                                               compute(keys::gpcCount), compute(keys::smsPerGpc)});
  }

  void run(Context& ctx) override {
    const int sms = ctx.info().sm_count();
    std::vector<SmGroups> by_size;
    std::vector<int> sizes;
    SmGroups pairs;
    int empty_in_a_row = 0;
    for (int size = 2; size <= std::min(sms, kMaxClusterSize); ++size) {
      ctx.expect_batches(1);
      std::vector<std::vector<int>> groups;
      try {
        groups = ctx.co_resident_sms(size);
      } catch (const device::Error& e) {
        if (e.kind() != device::Error::Kind::BadRequest &&
            e.kind() != device::Error::Kind::Measurement)
          throw;
        ctx.warn("layout: cluster size " + std::to_string(size) + " failed (" + e.what() +
                 "); larger sizes were not tried");
        break;
      }
      if (groups.empty()) {
        if (size == 2 || ++empty_in_a_row == 2) break;
        continue;
      }
      empty_in_a_row = 0;
      if (size == 2) pairs = groups;
      sizes.push_back(size);
      by_size.push_back(std::move(groups));
    }
    put_tpcs(ctx, pairs, sms);
    put_gpcs(ctx, by_size, sizes, sms);
  }

 private:
  // The per-SM L2 near-hit latency (NaN where not measured) and its standard error.
  static std::vector<double> per_sm_latency(const Context& ctx, int sms, double& se) {
    const auto* by_sm = ctx.get("l2", keys::nearLatencyBySm);
    std::vector<double> latency(static_cast<std::size_t>(std::max(sms, 0)), std::nan(""));
    se = 0;
    if (by_sm && by_sm->available() && by_sm->evidence.contains("perSm")) {
      const auto& per = by_sm->evidence["perSm"];
      for (std::size_t i = 0; i < per.size() && i < latency.size(); ++i)
        if (per[i].is_number()) latency[i] = per[i].get<double>();
      se = by_sm->evidence.value("standardError", 0.0);
    }
    return latency;
  }

  static void put_tpcs(Context& ctx, const SmGroups& pairs, int sms) {
    double se = 0;
    const auto latency = per_sm_latency(ctx, sms, se);
    const double threshold = std::max(0.5, kEqualSigmas * std::sqrt(2.0) * se);
    const auto t = analysis::tpcs_from_latency(latency, threshold, pairs);
    if (!t.established) {
      for (const model::Key* key : {&keys::tpcCount, &keys::smsPerTpc})
        ctx.put_compute(*key, model::Attribute::unavailable(model::Source::Measured, "", t.reason));
      return;
    }
    model::Json evidence = {{"tpcs", groups_json(t.tpcs)},
                            {"equalWithinCycles", threshold},
                            {"withinGroupVarianceShare", t.within_share},
                            {"pairAgreementAcrossGroups", t.chance_pair}};
    auto count =
        model::Attribute::measured(static_cast<double>(t.tpcs.size()), "", t.method, t.confidence);
    count.reason = t.reason;
    count.evidence = evidence;
    ctx.put_compute(keys::tpcCount, count);
    model::set_tpcs(ctx.topology(), sms, t.tpcs);
    if (t.sms_per_tpc > 0) {
      auto per = model::Attribute::measured(t.sms_per_tpc, "", t.method, t.confidence);
      per.reason = t.reason;
      ctx.put_compute(keys::smsPerTpc, per);
    } else {
      ctx.put_compute(keys::smsPerTpc, model::Attribute::unavailable(model::Source::Measured, "",
                                                                     "the TPCs differ in size"));
    }
  }

  static void put_gpcs(Context& ctx, const std::vector<SmGroups>& by_size,
                       const std::vector<int>& sizes, int sms) {
    auto fail = [&](const std::string& why, model::Json evidence) {
      for (const model::Key* key : {&keys::gpcCount, &keys::smsPerGpc}) {
        auto a = model::Attribute::unavailable(model::Source::Measured, "", why);
        a.evidence = evidence;
        ctx.put_compute(*key, a);
      }
    };
    if (by_size.empty())
      return fail("thread-block clusters are not supported on this GPU", model::Json());
    // The co-residency probe launches as many clusters as the occupancy API says fit at once, one
    // block per SM, and all of them run together: the number of groups is that count.
    std::map<int, int> counts;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      counts[sizes[i]] = static_cast<int>(by_size[i].size());
    // Clusters of 2 may be lone TPCs; only larger clusters tie SMs to a GPC.
    const auto p = analysis::gpcs_from_clusters(sms, by_size, 3);
    const std::string method = "co-resident SMs of thread-block clusters of sizes " +
                               std::to_string(sizes.front()) + " to " +
                               std::to_string(sizes.back()) + ", joined";
    model::Json evidence = {{"clusterSizes", sizes},
                            {"clustersAtOnce", counts_json(counts)},
                            {"gpcs", groups_json(p.gpcs)}};
    if (p.uncovered.empty()) return put_covered(ctx, p.gpcs, counts, method, evidence, sms);

    const SmGroups units = loose_units(sms, by_size, p.uncovered);
    evidence["uncovered"] = p.uncovered;
    evidence["uncoveredUnits"] = groups_json(units);

    // Which structures of GPCs found and loose units reproduce the clusters-at-once counts.
    const auto fit = analysis::fit_cluster_counts(p.gpcs, units, counts);
    const int found = static_cast<int>(p.gpcs.size());
    Placed placed = place(p.gpcs, units, fit);
    evidence["occupancyFit"] = occupancy_evidence(fit);
    const std::map<int, double> by_port = place_loose_by_port(ctx, placed, evidence);
    const auto& [gpcs, apart, unknown, placed_by_counts] = placed;
    evidence["gpcs"] = groups_json(gpcs);
    put_placement(ctx, evidence, gpcs, sms, 0.9, placed_by_counts, by_port, units);
    if (unknown.empty() && apart.empty() && !by_port.empty())
      return put_placed_by_port(ctx, gpcs, by_port, method, evidence);
    if (unknown.empty() && apart.empty()) {
      // Every loose unit has one GPC that the counts need it in.
      auto count = model::Attribute::measured(static_cast<double>(gpcs.size()), "",
                                              method +
                                                  "; SMs no cluster of 3 or more held "
                                                  "placed where the clusters-at-once "
                                                  "counts need them",
                                              0.8);
      count.evidence = evidence;
      ctx.put_compute(keys::gpcCount, count);
      ctx.put_compute(keys::smsPerGpc,
                      model::Attribute::measured(sizes_json(gpcs), "", count.method, 0.8));
      return;
    }
    std::string why =
        unplaced_reason(p.uncovered.size(), units, placed, fit, sizes, found, evidence);
    // Whether the per-SM L2 latency could place them: only if it separates the GPCs found.
    double se = 0;
    const auto latency = per_sm_latency(ctx, sms, se);
    if (!p.gpcs.empty() &&
        std::any_of(latency.begin(), latency.end(), [](double x) { return !std::isnan(x); })) {
      const double within = analysis::within_group_variance_share(latency, p.gpcs);
      evidence["latencyVarianceInsideGpcs"] = within;
      char share[16];
      std::snprintf(share, sizeof share, "%.0f", 100 * within);
      why += within > 0.5 ? std::string("; the per-SM L2 latency cannot place them either: ")
                          : std::string("; not placed by the per-SM L2 latency: ");
      why += std::string("the GPCs found leave ") + share + " % of its variance inside themselves";
    }
    fail(why, evidence);
  }

  // Every SM was in a cluster of 3 or more: the GPCs are the joined groups, checked against the
  // clusters-at-once counts they predict.
  static void put_covered(Context& ctx, const SmGroups& gpcs, const std::map<int, int>& counts,
                          const std::string& method, model::Json evidence, int sms) {
    std::vector<int> unit_sizes;
    for (const auto& g : gpcs) unit_sizes.push_back(static_cast<int>(g.size()));
    std::vector<int> asked;
    for (const auto& [k, n] : counts) asked.push_back(k);
    const auto predicted = analysis::predicted_cluster_counts(unit_sizes, asked);
    evidence["predictedClustersAtOnce"] = counts_json(predicted);
    const bool agree = predicted == counts;
    const double confidence = agree ? 0.95 : 0.5;
    put_placement(ctx, evidence, gpcs, sms, confidence, {}, {}, {});
    auto count = model::Attribute::measured(
        static_cast<double>(gpcs.size()), "",
        method + (agree ? "; the clusters-at-once counts agree" : ""), confidence);
    count.evidence = evidence;
    count.reason = agree ? "a GPC whose SMs never shared a cluster would count twice"
                         : "the GPCs do not reproduce the clusters-at-once counts (evidence: "
                           "clustersAtOnce, predictedClustersAtOnce)";
    ctx.put_compute(keys::gpcCount, count);
    auto sms_per = model::Attribute::measured(sizes_json(gpcs), "", count.method, confidence);
    ctx.put_compute(keys::smsPerGpc, sms_per);
  }

  // Every SM placed, some by the port test: the count at the weakest placement's confidence.
  static void put_placed_by_port(Context& ctx, const SmGroups& gpcs,
                                 const std::map<int, double>& by_port, const std::string& method,
                                 const model::Json& evidence) {
    double sure = 0.9;
    for (const auto& [sm, c] : by_port) sure = std::min(sure, c);
    auto count = model::Attribute::measured(
        static_cast<double>(gpcs.size()), "",
        method +
            "; SMs no cluster of 3 or more held placed in the GPC whose L2 port they share "
            "(read rates of SM sets)",
        sure);
    count.evidence = evidence;
    ctx.put_compute(keys::gpcCount, count);
    ctx.put_compute(keys::smsPerGpc,
                    model::Attribute::measured(sizes_json(gpcs), "", count.method, sure));
  }

  // At --depth full, the loose units that the counts leave apart or unplaced go to the GPC whose
  // L2 port they share (gpc_port.hpp), where exactly one does: moved into `placed.gpcs`, with
  // their confidence by SM. A device that times no read rates leaves them as they were.
  static std::map<int, double> place_loose_by_port(Context& ctx, Placed& placed,
                                                   model::Json& evidence) {
    std::map<int, double> by_port;
    SmGroups loose = placed.apart;
    loose.insert(loose.end(), placed.unknown.begin(), placed.unknown.end());
    if (loose.empty() || placed.gpcs.empty() || ctx.options().depth != Depth::Full) return by_port;
    device::ReadRateRequest r;
    for (std::uint64_t line = 0; line < kPortLines; ++line) r.line_offsets.push_back(line * 128);
    r.repeats = 3;
    const auto rate = [&](const std::vector<int>& set) {
      r.sms = set;
      auto gbps = ctx.read_rate(r).gbps;
      std::sort(gbps.begin(), gbps.end());
      const double mid = gbps[gbps.size() / 2];
      return SetRate{mid, mid > 0 ? (gbps.back() - gbps.front()) / mid : 0.0};
    };
    PortPlacement port;
    try {
      port = place_by_port(placed.gpcs, loose, rate);
    } catch (const device::Error& e) {
      if (e.kind() != device::Error::Kind::BadRequest) throw;
      evidence["portPlacement"] = {{"skipped", e.what()}};
      return by_port;
    }
    evidence["portPlacement"] = port.evidence;
    placed.apart.clear();
    placed.unknown.clear();
    for (std::size_t u = 0; u < loose.size(); ++u) {
      if (port.gpc_of_unit[u] < 0) {
        placed.unknown.push_back(loose[u]);
        continue;
      }
      auto& g = placed.gpcs[static_cast<std::size_t>(port.gpc_of_unit[u])];
      g.insert(g.end(), loose[u].begin(), loose[u].end());
      std::sort(g.begin(), g.end());
      for (int sm : loose[u]) by_port[sm] = port.confidence[u];
    }
    return by_port;
  }

  // The GPC of each SM (null where not placed) and the confidence of each placement: `confidence`
  // for SMs that shared a cluster, 0.8 for SMs `by_counts` placed, `by_port`'s for those the port
  // test placed; into the evidence and the topology, with the `loose` units of SMs in no GPC.
  static void put_placement(Context& ctx, model::Json& evidence, const SmGroups& gpcs, int sms,
                            double confidence, const std::set<int>& by_counts,
                            const std::map<int, double>& by_port, const SmGroups& loose) {
    model::Json gpc_of = model::Json::array();
    model::Json sure = model::Json::array();
    std::vector<int> of(static_cast<std::size_t>(std::max(sms, 0)), -1);
    for (std::size_t g = 0; g < gpcs.size(); ++g)
      for (int sm : gpcs[g])
        if (sm >= 0 && sm < sms) of[static_cast<std::size_t>(sm)] = static_cast<int>(g);
    for (int g : of) gpc_of.push_back(g < 0 ? model::Json() : model::Json(g));
    for (int sm = 0; sm < sms; ++sm)
      sure.push_back(of[static_cast<std::size_t>(sm)] < 0 ? 0.0
                     : by_port.count(sm)                  ? by_port.at(sm)
                     : by_counts.count(sm)                ? 0.8
                                                          : confidence);
    evidence["gpcOfSm"] = gpc_of;
    evidence["placementConfidence"] = sure;
    model::set_gpcs(ctx.topology(), sms, gpcs, sure.get<std::vector<double>>(), loose);
  }

  static model::Json counts_json(const std::map<int, int>& counts) {
    model::Json j = model::Json::object();
    for (const auto& [k, n] : counts) j[std::to_string(k)] = n;
    return j;
  }

  static model::Json sizes_json(const SmGroups& gpcs) {
    model::Json per = model::Json::array();
    for (const auto& g : gpcs) per.push_back(g.size());
    return per;
  }
};

}  // namespace

// TPCs and GPCs from thread-block cluster co-residency and per-SM L2 latency.
GPUTOPO_REGISTER_PROBE(Family::Layout, 10, Made::Once,
                       [](const Site&) { return std::make_unique<LayoutProbe>(); });

}  // namespace gputopo::discovery
