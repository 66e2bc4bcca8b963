#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/layout_inference.hpp"
#include "discovery/context.hpp"
#include "discovery/probes/layout/layout_probes.hpp"

namespace gputopo::discovery {
namespace {

using analysis::SmGroups;

// Thread-block clusters hold at most 16 blocks (non-portable size) on every GPU that has them so
// far; a larger size is not asked for: the occupancy query does not refuse it, only the launch
// does.
constexpr int kMaxClusterSize = 16;
// Per-SM latencies closer than this many standard errors of their difference count as equal.
constexpr double kEqualSigmas = 4;

model::Json groups_json(const SmGroups& groups) {
  model::Json j = model::Json::array();
  for (const auto& g : groups) j.push_back(g);
  return j;
}

// Thread-block clusters run on SMs of one GPC: the co-resident SM groups of every cluster size
// from 2 up to the largest the GPU launches are joined into GPCs. TPCs are the grouping (cluster
// pairs, or consecutive SM ids) whose SMs read the same per-SM L2 latency (l2.smLatency).
class LayoutProbe final : public Probe {
 public:
  LayoutProbe() : Probe("layout", {}) { declare({{"l2", &keys::nearLatencyBySm}}, {}); }

  void run(Context& ctx) override {
    const int sms = ctx.info().sm_count;
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
    // Clusters of 2 may be lone TPCs; only larger clusters tie SMs to a GPC.
    const auto p = analysis::gpcs_from_clusters(sms, by_size, 3);
    const std::string method = "co-resident SMs of thread-block clusters of sizes " +
                               std::to_string(sizes.front()) + " to " +
                               std::to_string(sizes.back()) + ", joined";
    model::Json evidence = {{"clusterSizes", sizes}, {"gpcs", groups_json(p.gpcs)}};
    if (!p.uncovered.empty()) {
      // The left-out SMs in units that ran together (a TPC, from clusters of 2): each may belong
      // to a GPC found or form one of its own, so at most one more GPC per unit.
      const auto loose = analysis::gpcs_from_clusters(sms, by_size, 2);
      SmGroups units;
      for (const auto& g : loose.gpcs)
        if (std::all_of(g.begin(), g.end(), [&](int sm) {
              return std::find(p.uncovered.begin(), p.uncovered.end(), sm) != p.uncovered.end();
            }))
          units.push_back(g);
      for (int sm : loose.uncovered) units.push_back({sm});
      std::string listed;
      for (const auto& u : units) {
        if (!listed.empty()) listed += ", ";
        listed += std::to_string(u.front());
        if (u.size() > 1) listed += "-" + std::to_string(u.back());
      }
      evidence["uncovered"] = p.uncovered;
      evidence["uncoveredUnits"] = groups_json(units);
      std::string why = std::to_string(p.uncovered.size()) + " SMs in " +
                        std::to_string(units.size()) + " units that ran together (" + listed +
                        ") never shared a cluster of 3 or more with other SMs, so their GPC is " +
                        "not known: each may belong to one of the " +
                        std::to_string(p.gpcs.size()) + " GPCs found or form one of its own, " +
                        "between " + std::to_string(std::max<std::size_t>(p.gpcs.size(), 1)) +
                        " and " + std::to_string(p.gpcs.size() + units.size()) + " GPCs";
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
        why +=
            std::string("the GPCs found leave ") + share + " % of its variance inside themselves";
      }
      return fail(why, evidence);
    }
    auto count = model::Attribute::measured(static_cast<double>(p.gpcs.size()), "", method, 0.9);
    count.evidence = evidence;
    count.reason = "a GPC whose SMs never shared a cluster would count twice";
    ctx.put_compute(keys::gpcCount, count);
    model::Json per = model::Json::array();
    for (const auto& g : p.gpcs) per.push_back(g.size());
    auto sms_per = model::Attribute::measured(per, "", method, 0.9);
    ctx.put_compute(keys::smsPerGpc, sms_per);
  }
};

}  // namespace

std::unique_ptr<Probe> make_layout_probe() { return std::make_unique<LayoutProbe>(); }

}  // namespace gputopo::discovery
