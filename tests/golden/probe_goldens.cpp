#include "probe_goldens.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "discovery/registry.hpp"

namespace gputopo::cli::golden {
namespace {

using discovery::Finding;
using discovery::Probe;
using model::Json;

bool lists(const std::vector<Finding>& list, const Finding& f) {
  return std::find(list.begin(), list.end(), f) != list.end();
}

// The probe whose golden holds `f`: its producer, else its first writer.
const Probe* owner(const std::vector<std::unique_ptr<Probe>>& probes, const Finding& f) {
  const Probe* first = nullptr;
  for (const auto& p : probes) {
    if (!lists(p->writes(), f)) continue;
    if (!lists(p->reads(), f)) return p.get();
    if (first == nullptr) first = p.get();
  }
  return first;
}

// The section that holds a finding of `element`, or nullptr.
Json* section(Json& report, const std::string& element) {
  if (element == "compute") return report.contains("compute") ? &report["compute"] : nullptr;
  if (!report.contains("memory") || !report["memory"].contains(element)) return nullptr;
  return &report["memory"][element];
}

void take_phases(ProbeSplit& out, const std::vector<std::unique_ptr<Probe>>& probes) {
  Json& run = out.rest["run"];
  if (!run.contains("phases")) return;
  Json kept = Json::array();
  for (const auto& phase : run["phases"]) {
    const std::string name = phase.value("name", "");
    const bool of_probe =
        std::any_of(probes.begin(), probes.end(), [&](const auto& p) { return p->name() == name; });
    if (of_probe)
      out.probes[name]["status"] = phase.value("status", "");
    else
      kept.push_back(phase);
  }
  run["phases"] = std::move(kept);
}

}  // namespace

ProbeSplit split_by_probe(Json report, const device::DeviceInfo& info) {
  ProbeSplit out;
  out.rest = std::move(report);
  const auto probes = discovery::registered_probes(info);
  take_phases(out, probes);
  for (const auto& p : probes)
    for (const Finding& f : p->writes()) {
      if (f.key == nullptr) continue;
      const std::string key = f.key->str();
      Json* s = section(out.rest, f.element);
      if (s == nullptr || !s->contains(key) || owner(probes, f) != p.get()) continue;
      out.probes[p->name()]["findings"][f.element + "." + key] = std::move((*s)[key]);
      s->erase(key);
    }
  return out;
}

}  // namespace gputopo::cli::golden
