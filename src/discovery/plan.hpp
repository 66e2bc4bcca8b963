#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "discovery/probe.hpp"

namespace gputopo::discovery {

// The names --only takes besides probe names, comma-separated in registration order: every
// element the probes write, and the name of each probe that writes none (such as the layout).
std::string selectable_names(const std::vector<std::unique_ptr<Probe>>& probes);

// The probes of one run in an order where every probe follows the probes it needs.
class Plan {
 public:
  // Selects the probes for `only` (element keys or probe names; empty = all) with everything they
  // need, ordered by dependency and otherwise by registration order. Throws std::invalid_argument
  // for a name that is neither an element nor a probe, and for a dependency cycle or a missing
  // dependency (a programming error).
  Plan(std::vector<std::unique_ptr<Probe>> registered, const std::set<std::string>& only);

  const std::vector<std::unique_ptr<Probe>>& probes() const { return probes_; }
  // Elements to report: the selected ones, in the order their probes were registered.
  const std::vector<std::string>& elements() const { return elements_; }

 private:
  std::vector<std::unique_ptr<Probe>> probes_;
  std::vector<std::string> elements_;
};

}  // namespace gputopo::discovery
