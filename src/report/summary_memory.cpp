#include <algorithm>
#include <limits>
#include <utility>

#include "report/format.hpp"
#include "report/summary_text.hpp"
#include "report/text_layout.hpp"

namespace gputopo::report {
namespace {
using model::Attribute;

const Attribute* any_of(const model::Element& e, std::initializer_list<std::string_view> keys) {
  const Attribute* first = nullptr;
  for (auto key : keys)
    if (const Attribute* a = model::find(e.attributes, key)) {
      if (a->available()) return a;
      if (!first) first = a;
    }
  return first;
}

double latency_of(const model::Element& e) {
  const Attribute* a = any_of(e, {"latency", "nearLatency"});
  return a && a->available() && a->value.is_number() ? a->value.get<double>()
                                                     : std::numeric_limits<double>::infinity();
}

// "268-516" for the near and far latency of a partitioned cache, else the one latency.
std::string latency_cell(const model::Element& e, const char* one, const char* near,
                         const char* far) {
  const Attribute* n = model::find(e.attributes, near);
  const Attribute* f = model::find(e.attributes, far);
  if (n && f && n->available() && f->available() && n->value.is_number() && f->value.is_number())
    return short_number(n->value.get<double>()) + "-" + short_number(f->value.get<double>());
  const Attribute* a = any_of(e, {one, near});
  return a && a->available() && a->value.is_number() ? short_number(a->value.get<double>())
                                                     : report::cell(a);
}

std::string number_cell(const Attribute* a) {
  return a && a->available() && a->value.is_number() ? short_number(a->value.get<double>())
                                                     : report::cell(a);
}

// Who shares the level: the logical spaces of one physical cache, how many there are a SM or in
// all, its segments, and DRAM's share of its peak.
std::string shares_cell(const model::Element& e) {
  std::vector<std::string> parts;
  const auto* with = model::find(e.attributes, "sharedWith");
  if (with && with->available() && with->value.is_array() && !with->value.empty()) {
    std::string names;
    for (const auto& other : with->value)
      names += (names.empty() ? "" : ", ") + label_for(other.get<std::string>());
    parts.push_back("with " + names);
  }
  const auto* per_sm = model::find(e.attributes, "countPerSm");
  const auto* by = model::find(e.attributes, "sharedBySms");
  if (per_sm && per_sm->available() && per_sm->value.is_number() && !(by && by->available()))
    parts.push_back(per_sm->value.get<double>() == 1
                        ? "one per SM"
                        : short_number(per_sm->value.get<double>()) + " per SM");
  if (by && by->available()) parts.push_back("shared by " + format_value(by->value, "") + " SMs");
  const auto* count = model::find(e.attributes, "segmentCount");
  const auto* size = model::find(e.attributes, "segmentSize");
  if (count && count->available() && count->value != 1 && size && size->available())
    parts.push_back(format_value(count->value, "") + " segments of " +
                    format_value(size->value, size->unit));
  const auto* instances = model::find(e.attributes, "instanceCount");
  if (instances && instances->available())
    parts.push_back(format_value(instances->value, "") + " instances");
  const auto* own = model::find(e.attributes, "unsharedReadBandwidth");
  if (own && own->available() && own->value.is_number())
    parts.push_back("unshared " + short_number(own->value.get<double>()) + " GB/s");
  const auto* peak = model::find(e.attributes, "readFractionOfPeak");
  if (peak && peak->available() && peak->value.is_number())
    parts.push_back(short_number(peak->value.get<double>()) + " % of peak");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

bool measured_anything(const model::Element& e) {
  for (const auto& [key, a] : e.attributes)
    if (a.available() && a.source != model::Source::Api) return true;
  return false;
}

}  // namespace

std::vector<std::string> memory_table(const model::Report& r) {
  std::vector<const model::Element*> levels;
  for (const auto& e : r.memory)
    if (const Attribute* size = any_of(e, {"size", "apiSize"});
        measured_anything(e) || (size && size->available()))
      levels.push_back(&e);
  if (levels.empty()) return {};
  // Nearest first: by latency where measured, then the others by size.
  const auto size_of = [](const model::Element& e) {
    const Attribute* a = any_of(e, {"size", "capacity", "apiSize"});
    return a && a->available() && a->value.is_number() ? a->value.get<double>()
                                                       : std::numeric_limits<double>::infinity();
  };
  std::stable_sort(levels.begin(), levels.end(), [&](const auto* a, const auto* b) {
    return std::pair(latency_of(*a), size_of(*a)) < std::pair(latency_of(*b), size_of(*b));
  });
  std::vector<std::vector<std::string>> rows{
      {"Memory", "Size", "Line", "Latency", "", "Read", "Shared"},
      {"(nearest first)", "", "", "cycles", "ns", "GB/s", ""}};
  for (const auto* e : levels)
    rows.push_back({label_for(e->key),
                    report::cell(any_of(*e, {"size", "capacity", "apiSize", "reach"})),
                    report::cell(model::find(e->attributes, "lineSize")),
                    latency_cell(*e, "latency", "nearLatency", "farLatency"),
                    latency_cell(*e, "latencyNs", "nearLatencyNs", "farLatencyNs"),
                    number_cell(model::find(e->attributes, "readBandwidth")), shares_cell(*e)});
  return align(rows, {false, true, true, true, true, true, false});
}

}  // namespace gputopo::report
