#include "discovery/elements.hpp"

#include <algorithm>

#include "model/keys.hpp"

namespace gputopo::discovery {

std::vector<model::Element> assemble_elements(
    const std::map<std::string, model::AttributeList>& findings,
    const std::vector<std::string>& keys) {
  std::vector<model::Element> elements;
  for (const auto& key : keys) {
    model::Element e{key, {}};
    if (const auto it = findings.find(key); it != findings.end()) {
      e.attributes = it->second;
      std::stable_sort(e.attributes.begin(), e.attributes.end(), [](const auto& a, const auto& b) {
        return model::report_rank(a.first) < model::report_rank(b.first);
      });
    }
    elements.push_back(std::move(e));
  }
  return elements;
}

}  // namespace gputopo::discovery
