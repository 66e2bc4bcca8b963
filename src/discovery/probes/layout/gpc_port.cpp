#include "discovery/probes/layout/gpc_port.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "analysis/summary.hpp"

namespace gputopo::discovery {
namespace {

// The range of 3 normal samples is about 1.69 standard deviations.
constexpr double kRangeOverSd = 1.69;
constexpr double kNoiseFloor = 0.002;
// The posterior a unit's GPC must hold: a unit placed is a gpcCount claimed.
constexpr double kPlaced = 0.9;

// The port's rate: the median of the faster half of the GPCs alone. The fastest alone would lie
// above it by the noise of the most favourable draw; a GPC too small to fill its port reads less.
double port_rate(std::vector<double> alone) {
  std::sort(alone.begin(), alone.end(), std::greater<>());
  alone.resize((alone.size() + 1) / 2);
  return analysis::median(alone);
}

// What each unit's ratio with each GPC would be were it apart from every GPC (`apart`), and were
// it to share GPC g's port (`shared[g]`).
struct Predictions {
  std::vector<double> apart, shared;
};

Predictions predictions(const analysis::SmGroups& gpcs, const std::vector<int>& unit,
                        const std::vector<double>& alone, double port) {
  Predictions p;
  for (std::size_t g = 0; g < gpcs.size(); ++g) {
    const double n = static_cast<double>(gpcs[g].size());
    p.apart.push_back((n + static_cast<double>(unit.size())) / n);
    p.shared.push_back(std::min(p.apart.back(), alone[g] > 0 ? port / alone[g] : 0.0));
  }
  return p;
}

// Squared standardised misfit of the ratios under "shares GPC `g`'s port" (g = -1: apart from
// every GPC, a GPC of its own).
double misfit(const std::vector<double>& ratio, const Predictions& p, int g, double sd) {
  double sum = 0;
  for (std::size_t h = 0; h < ratio.size(); ++h) {
    const double want = static_cast<int>(h) == g ? p.shared[h] : p.apart[h];
    sum += std::pow((ratio[h] - want) / sd, 2);
  }
  return sum;
}

// Each hypothesis' posterior under equal priors: entry g for GPC g, the last for "apart".
std::vector<double> posteriors(const std::vector<double>& ratio, const Predictions& p, double sd) {
  std::vector<double> chi;
  for (int g = 0; g < static_cast<int>(ratio.size()); ++g) chi.push_back(misfit(ratio, p, g, sd));
  chi.push_back(misfit(ratio, p, -1, sd));
  const double best = *std::min_element(chi.begin(), chi.end());
  double total = 0;
  for (double& c : chi) total += (c = std::exp(-(c - best) / 2));
  for (double& c : chi) c /= total;
  // Sharing a GPC whose two predictions lie within two noise sds of each other is no other
  // hypothesis than being apart: its share goes there.
  for (std::size_t g = 0; g < ratio.size(); ++g)
    if (p.apart[g] - p.shared[g] < 2 * sd) chi.back() += std::exchange(chi[g], 0.0);
  return chi;
}

// The residuals' RMS under each unit's best hypothesis: the noise the repeats' range does not see
// (one call to the next, and how far the rates follow the model).
double residual_sd(const std::vector<std::vector<double>>& ratio,
                   const std::vector<Predictions>& pred, double sd) {
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t u = 0; u < ratio.size(); ++u) {
    const auto post = posteriors(ratio[u], pred[u], sd);
    const auto best = std::max_element(post.begin(), post.end()) - post.begin();
    const int g = best == static_cast<long>(ratio[u].size()) ? -1 : static_cast<int>(best);
    sum += misfit(ratio[u], pred[u], g, 1.0);
    count += ratio[u].size();
  }
  return count > 0 ? std::sqrt(sum / static_cast<double>(count)) : 0.0;
}

}  // namespace

PortPlacement place_by_port(const analysis::SmGroups& gpcs, const analysis::SmGroups& units,
                            const std::function<SetRate(const std::vector<int>&)>& rate) {
  PortPlacement out;
  out.gpc_of_unit.assign(units.size(), -1);
  out.confidence.assign(units.size(), 0.0);
  std::vector<double> alone, ranges;
  for (const auto& g : gpcs) {
    const SetRate r = rate(g);
    alone.push_back(r.gbps);
    ranges.push_back(r.relative_range);
  }
  std::vector<std::vector<double>> ratio(units.size());
  for (std::size_t u = 0; u < units.size(); ++u)
    for (std::size_t g = 0; g < gpcs.size(); ++g) {
      std::vector<int> set = gpcs[g];
      set.insert(set.end(), units[u].begin(), units[u].end());
      const SetRate r = rate(set);
      ranges.push_back(r.relative_range);
      ratio[u].push_back(alone[g] > 0 ? r.gbps / alone[g] : 0.0);
    }
  // A ratio of two medians, each uncertain by the calls' typical relative noise; or more, where
  // the ratios stray further from their best hypothesis.
  const double repeat_sd =
      std::sqrt(2.0) * std::max(analysis::median(ranges) / kRangeOverSd, kNoiseFloor);
  const double port = port_rate(alone);
  std::vector<Predictions> pred;
  for (const auto& unit : units) pred.push_back(predictions(gpcs, unit, alone, port));
  const double sd = std::max(repeat_sd, residual_sd(ratio, pred, repeat_sd));
  model::Json per_unit = model::Json::array();
  for (std::size_t u = 0; u < units.size(); ++u) {
    const auto post = posteriors(ratio[u], pred[u], sd);
    const auto best =
        static_cast<std::size_t>(std::max_element(post.begin(), post.end() - 1) - post.begin());
    if (post[best] >= kPlaced) {
      out.gpc_of_unit[u] = static_cast<int>(best);
      out.confidence[u] = post[best];
    }
    per_unit.push_back(
        {{"sms", units[u]},
         {"ratioWithEachGpc", ratio[u]},
         {"posteriorOfEachGpc", std::vector<double>(post.begin(), post.end() - 1)},
         {"posteriorApart", post.back()},
         {"gpc", out.gpc_of_unit[u] < 0 ? model::Json() : model::Json(out.gpc_of_unit[u])},
         {"confidence", out.confidence[u]}});
  }
  out.evidence = {
      {"method",
       "L2 read rate of each GPC alone and with each loose unit added, equal work a SM: a unit "
       "with its own path raises a GPC of n SMs by (n + k) / n, one that shares the GPC's port at "
       "most to the port's rate (the median of the faster half of the GPCs alone); each unit's "
       "ratios with all GPCs are fitted under 'shares GPC g' for every g and under 'apart from "
       "all', and it joins the GPC whose hypothesis holds 0.9 of the posterior"},
      {"gpcGbps", alone},
      {"ratioSd", sd},
      {"repeatSd", repeat_sd},
      {"portGbps", port},
      {"units", per_unit}};
  return out;
}

}  // namespace gputopo::discovery
