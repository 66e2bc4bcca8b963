#include "model/attribute.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

std::optional<Interval> scaled(const std::optional<Interval>& i, double factor) {
  if (!i) return std::nullopt;
  const double a = i->lo * factor;
  const double b = i->hi * factor;
  return Interval{std::min(a, b), std::max(a, b)};
}

std::optional<Interval> difference(const std::optional<Interval>& a,
                                   const std::optional<Interval>& b) {
  if (!a || !b) return std::nullopt;
  return Interval{a->lo - b->hi, a->hi - b->lo};
}

double precision_share(const Interval& i, double value, double relative) {
  const double width = i.hi - i.lo;
  if (!(width > 0)) return 1.0;
  const double tol = relative * std::abs(value);
  const double inside = std::min(i.hi, value + tol) - std::max(i.lo, value - tol);
  return std::clamp(inside / width, 0.0, 1.0);
}

bool Attribute::needs_interval() const {
  return (source == Source::Measured || source == Source::Derived) && value.is_number();
}

bool discrete(const Attribute& a) {
  return !a.value.is_number() || a.unit.empty() || a.unit == "B" || a.unit == "bit";
}

void settle_interval(Attribute& a, std::string_view key, bool strict) {
  if (!a.needs_interval() || a.interval || !a.no_interval.empty()) return;
  if (discrete(a)) {
    a.no_interval = kDiscreteNoInterval;
    return;
  }
  if (strict)
    throw std::logic_error("measured " + std::string(key) +
                           " carries neither an interval nor the reason it has none");
  a.no_interval = kNoIntervalGiven;
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
  if (!a.no_interval.empty()) j["noInterval"] = a.no_interval;
  if (a.samples) j["samples"] = *a.samples;
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
