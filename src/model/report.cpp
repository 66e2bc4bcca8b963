#include "model/report.hpp"

namespace gputopo::model {

void merge(std::vector<Element>& into, const std::vector<Element>& from) {
  for (const auto& element : from) {
    bool merged = false;
    for (auto& existing : into)
      if (existing.key == element.key) {
        merge(existing.attributes, element.attributes);
        merged = true;
      }
    if (!merged) into.push_back(element);
  }
}

}  // namespace gputopo::model
