#include "sim_truth.hpp"

#include "device/sim/sim_info.hpp"
#include "discovery/target.hpp"
#include "model/vendor.hpp"

namespace gputopo::discovery::testing {

std::vector<ElementTruth> l1_family_truth(const device::sim::SimConfig& cfg, int carveout_percent) {
  std::vector<ElementTruth> out;
  for (const Target& t : l1_family_targets(device::sim::make_info(cfg))) {
    ElementTruth e;
    e.element = t.element;
    const auto& space = cfg.space(t.space);
    const auto level = static_cast<std::size_t>(t.level - 1);
    if (level < space.path.size()) {
      e.exists = true;
      e.cache_index = space.path[level];
      e.level = t.level;
      if (level > 0) e.inner_index = space.path[level - 1];
      const auto index = static_cast<std::size_t>(e.cache_index);
      const auto& spec = cfg.caches[index];
      const auto g = cfg.geometry(index, carveout_percent);
      e.size = g.size_bytes;
      e.size_capped = t.space_limit_bytes && g.size_bytes > t.space_limit_bytes;
      e.line = g.line_bytes;
      e.fetch = g.fetch_bytes;
      e.instances = spec.instances_per_sm;
      e.shared_by_sms = spec.shared_by_sms;
      e.random_replacement = g.replacement == device::sim::Replacement::Random;
      e.latency = spec.latency_cycles + space.extra_cycles;
    }
    out.push_back(e);
  }
  for (auto& a : out)
    for (const auto& b : out)
      if (&a != &b && a.exists && a.cache_index == b.cache_index && b.element != "constantL15" &&
          a.element != "constantL15")
        a.shared_with.push_back(b.element);
  return out;
}

std::set<std::string> l1_family_elements(const device::sim::SimConfig& cfg) {
  std::set<std::string> out{shared_element(cfg)};
  for (const Target& t : l1_family_targets(device::sim::make_info(cfg))) out.insert(t.element);
  return out;
}

std::string shared_element(const device::sim::SimConfig& cfg) {
  return std::string(model::shared_memory_element(device::sim::make_info(cfg)));
}

}  // namespace gputopo::discovery::testing
