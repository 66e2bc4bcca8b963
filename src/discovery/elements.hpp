#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/attribute.hpp"
#include "model/report.hpp"

namespace gputopo::discovery {

// The report elements for `keys`, each with its findings in a fixed attribute order (size first,
// then line size, fetch granularity, latencies, ...; keys not in that order follow as found).
// An element with no findings is reported with no attributes.
std::vector<model::Element> assemble_elements(
    const std::map<std::string, model::AttributeList>& findings,
    const std::vector<std::string>& keys);

}  // namespace gputopo::discovery
