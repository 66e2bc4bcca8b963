#include "model/attribute.hpp"

#include <algorithm>

namespace gputopo::model {

std::string_view to_string(Source s) {
  switch (s) {
    case Source::Api:
      return "api";
    case Source::Measured:
      return "measured";
    case Source::Derived:
      return "derived";
    case Source::Table:
      return "table";
  }
  return "unknown";
}

Attribute Attribute::api(Json v, std::string unit) {
  Attribute a;
  a.value = std::move(v);
  a.unit = std::move(unit);
  a.source = Source::Api;
  return a;
}

Attribute Attribute::table(Json v, std::string unit, std::string method) {
  Attribute a;
  a.value = std::move(v);
  a.unit = std::move(unit);
  a.source = Source::Table;
  a.method = std::move(method);
  return a;
}

Attribute Attribute::unavailable(Source s, std::string unit, std::string reason) {
  Attribute a;
  a.unit = std::move(unit);
  a.source = s;
  a.reason = std::move(reason);
  return a;
}

Attribute Attribute::measured(Json v, std::string unit, std::string method, double confidence) {
  Attribute a;
  a.value = std::move(v);
  a.unit = std::move(unit);
  a.source = Source::Measured;
  a.method = std::move(method);
  a.confidence = confidence;
  return a;
}

const Attribute* find(const AttributeList& list, std::string_view key) {
  for (const auto& [k, a] : list)
    if (k == key) return &a;
  return nullptr;
}

void merge(AttributeList& into, const AttributeList& from) {
  for (const auto& entry : from) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const auto& kv) { return kv.first == entry.first; });
    if (it != into.end())
      it->second = entry.second;
    else
      into.push_back(entry);
  }
}

Json to_json(const Attribute& a) {
  Json j;
  j["value"] = a.value;
  j["unit"] = a.unit;
  j["source"] = to_string(a.source);
  if (!a.method.empty()) j["method"] = a.method;
  if (a.confidence) j["confidence"] = *a.confidence;
  if (a.interval) j["interval"] = {a.interval->lo, a.interval->hi};
  if (!a.available()) j["available"] = false;
  if (!a.reason.empty()) j["reason"] = a.reason;
  if (!a.evidence.is_null()) j["evidence"] = a.evidence;
  return j;
}

Json to_json(const AttributeList& list) {
  Json j = Json::object();
  for (const auto& [k, a] : list) j[k] = to_json(a);
  return j;
}

}  // namespace gputopo::model
