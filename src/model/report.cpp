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

const Attribute* find(const Report& r, std::string_view path) {
  const auto dot = path.find('.');
  if (dot == std::string_view::npos) return nullptr;
  const auto section = path.substr(0, dot);
  const auto key = path.substr(dot + 1);
  if (section == "compute") return find(r.compute, key);
  for (const auto& e : r.memory)
    if (e.key == section) return find(e.attributes, key);
  return nullptr;
}

void settle_levels(Report& r) {
  for (LevelState* level : {&r.topology.tpc_state, &r.topology.gpc_state, &r.topology.segment_state,
                            &r.topology.slice_state}) {
    const Attribute* a = find(r, level->key);
    level->measured = a != nullptr;
    level->established = a && a->available();
    level->confidence = a ? a->confidence : std::nullopt;
    level->reason = a ? a->reason : std::string();
  }
}

}  // namespace gputopo::model
