#include "discovery/plan.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace gputopo::discovery {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool all_selected(const std::vector<std::string>& elements, const std::set<std::string>& only) {
  return std::all_of(elements.begin(), elements.end(),
                     [&](const std::string& e) { return only.count(e) > 0; });
}

bool declares(const std::vector<Finding>& list, const Finding& f) {
  return std::find(list.begin(), list.end(), f) != list.end();
}

// For each probe, the probes it follows: those it names in needs(), and the producers of what it
// reads (a probe that writes the finding without reading it).
std::vector<std::vector<std::size_t>> dependencies(
    const std::vector<std::unique_ptr<Probe>>& probes,
    const std::map<std::string, std::size_t>& by_name) {
  std::vector<std::vector<std::size_t>> deps(probes.size());
  for (std::size_t i = 0; i < probes.size(); ++i) {
    for (const auto& need : probes[i]->needs()) {
      const auto it = by_name.find(need);
      if (it == by_name.end())
        throw std::invalid_argument("discovery plan: " + probes[i]->name() +
                                    " needs unknown probe " + need);
      deps[i].push_back(it->second);
    }
    for (const Finding& f : probes[i]->reads())
      for (std::size_t j = 0; j < probes.size(); ++j)
        if (j != i && declares(probes[j]->writes(), f) && !declares(probes[j]->reads(), f) &&
            std::find(deps[i].begin(), deps[i].end(), j) == deps[i].end())
          deps[i].push_back(j);
  }
  return deps;
}

}  // namespace

std::string selectable_names(const std::vector<std::unique_ptr<Probe>>& probes) {
  std::vector<std::string> elements;
  for (const auto& p : probes) {
    // A probe that writes no memory element (the layout) is selected by its own name.
    if (p->elements().empty() && !contains(elements, p->name())) elements.push_back(p->name());
    for (const auto& e : p->elements())
      if (!contains(elements, e)) elements.push_back(e);
  }
  std::string out;
  for (const auto& e : elements) out += (out.empty() ? "" : ", ") + e;
  return out;
}

Plan::Plan(std::vector<std::unique_ptr<Probe>> registered, const std::set<std::string>& only) {
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < registered.size(); ++i) by_name[registered[i]->name()] = i;

  // The selection: every probe that writes a selected element (all of its elements for a probe
  // selected by all), or is named itself.
  std::vector<bool> wanted(registered.size(), only.empty());
  for (const auto& name : only) {
    bool matched = false;
    for (std::size_t i = 0; i < registered.size(); ++i) {
      const Probe& p = *registered[i];
      const bool writes = contains(p.elements(), name);
      matched = matched || writes || p.name() == name;
      if (p.name() == name || (writes && (p.selection() == Probe::Selection::AnyElement ||
                                          all_selected(p.elements(), only))))
        wanted[i] = true;
    }
    if (!matched)
      throw std::invalid_argument("unknown element or probe '" + name + "' (known: " +
                                  selectable_names(registered) + ", or a probe such as l1.size)");
  }

  // Elements to report, in registration order.
  for (std::size_t i = 0; i < registered.size(); ++i) {
    if (!wanted[i]) continue;
    for (const auto& e : registered[i]->elements()) {
      const bool selected = only.empty() || only.count(e) || only.count(registered[i]->name());
      if (selected && !contains(elements_, e)) elements_.push_back(e);
    }
  }

  // Dependency closure and a stable topological order (depth-first, registration order).
  const auto deps = dependencies(registered, by_name);
  std::vector<int> state(registered.size(), 0);  // 0 new, 1 visiting, 2 placed
  std::vector<std::size_t> order;
  auto visit = [&](auto&& self, std::size_t i) -> void {
    if (state[i] == 2) return;
    if (state[i] == 1)
      throw std::invalid_argument("discovery plan: dependency cycle at " + registered[i]->name());
    state[i] = 1;
    for (const std::size_t d : deps[i]) self(self, d);
    state[i] = 2;
    order.push_back(i);
  };
  for (std::size_t i = 0; i < registered.size(); ++i)
    if (wanted[i]) visit(visit, i);

  for (std::size_t i : order) probes_.push_back(std::move(registered[i]));
}

}  // namespace gputopo::discovery
