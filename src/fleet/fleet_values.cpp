#include "fleet/fleet_values.hpp"

#include <array>
#include <limits>
#include <stdexcept>
#include <string_view>

namespace gputopo::fleet {
namespace {

using model::Json;

// Keys of the device section that name one GPU or one moment, not what the GPU is.
constexpr std::array<std::string_view, 7> kNotCompared{
    "uuid", "pciBusId", "numaId", "hostNumaId", "otherProcesses", "smClock", "memoryClock"};

bool compared(std::string_view section, std::string_view key) {
  if (section != "device") return true;
  for (const auto k : kNotCompared)
    if (k == key) return false;
  return true;
}

std::string text_or_empty(const Json& attr, const char* key) {
  const auto it = attr.find(key);
  return it != attr.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> number_at(const Json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// [lo, hi] with null bounds open; nothing where it is not two numbers or nulls with lo <= hi.
std::optional<std::pair<double, double>> interval_of(const Json& attr) {
  const auto it = attr.find("interval");
  if (it == attr.end() || !it->is_array() || it->size() != 2) return std::nullopt;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const Json& lo = (*it)[0];
  const Json& hi = (*it)[1];
  if (!(lo.is_number() || lo.is_null()) || !(hi.is_number() || hi.is_null())) return std::nullopt;
  std::pair<double, double> out{lo.is_null() ? -kInf : lo.get<double>(),
                                hi.is_null() ? kInf : hi.get<double>()};
  if (!(out.first <= out.second)) return std::nullopt;
  return out;
}

std::optional<Spread> spread_of(const Json& attr) {
  const auto it = attr.find("spread");
  if (it == attr.end() || !it->is_object()) return std::nullopt;
  Spread s;
  if (const auto runs = number_at(*it, "runs"); runs && *runs >= 0 && *runs < 1e15)
    s.runs = std::size_t(*runs);
  if (const auto sigma = number_at(*it, "sigma"); sigma && *sigma >= 0) s.sigma = *sigma;
  const auto lo = number_at(*it, "min");
  const auto hi = number_at(*it, "max");
  if (lo && hi && *lo <= *hi) s.range = std::make_pair(*lo, *hi);
  if (const auto v = it->find("values"); v != it->end() && v->is_array())
    for (const Json& x : *v)
      if (x.is_number() || x.is_string() || x.is_boolean()) s.values.push_back(x);
  return s;
}

// One attribute, or nothing where it is not one scalar (per-SM lists, pipeline tables).
std::optional<Value> value_of(const std::string& path, const Json& attr) {
  if (!attr.is_object() || !attr.contains("value")) return std::nullopt;
  const Json& v = attr["value"];
  if (!v.is_null() && !v.is_number() && !v.is_string() && !v.is_boolean()) return std::nullopt;
  Value out{path,
            v,
            text_or_empty(attr, "unit"),
            text_or_empty(attr, "source"),
            number_at(attr, "confidence"),
            interval_of(attr),
            spread_of(attr),
            text_or_empty(attr, "reason")};
  return out;
}

void add_section(const Json& section, const std::string& prefix, std::string_view name,
                 std::vector<Value>& out) {
  for (const auto& [key, attr] : section.items())
    if (compared(name, key))
      if (auto v = value_of(prefix + key, attr)) out.push_back(std::move(*v));
}

Member member_of(const Json& report, const std::string& name) {
  const auto object_at = [&](const char* key) {
    const auto it = report.find(key);
    return it != report.end() && it->is_object();
  };
  if (!report.is_object() || !object_at("device") || !object_at("memory"))
    throw std::invalid_argument("not a gputopo report (no device and memory sections)");
  const auto gpu = report["device"].find("name");
  if (gpu == report["device"].end() || !gpu->is_object() || !gpu->contains("value"))
    throw std::invalid_argument("not a gputopo report (no device.name)");
  Member m{name, {}};
  add_section(report["device"], "device.", "device", m.values);
  if (object_at("compute")) add_section(report["compute"], "compute.", "compute", m.values);
  for (const auto& [element, attrs] : report["memory"].items())
    if (attrs.is_object()) add_section(attrs, "memory." + element + ".", "memory", m.values);
  return m;
}

}  // namespace

std::vector<Member> members_of(const Json& doc, const std::string& name) {
  if (doc.is_object() && doc.contains("gpus") && doc["gpus"].is_array()) {
    std::vector<Member> members;
    members.reserve(doc["gpus"].size());
    for (std::size_t i = 0; i < doc["gpus"].size(); ++i)
      members.push_back(member_of(doc["gpus"][i], name + "#" + std::to_string(i)));
    if (members.empty()) throw std::invalid_argument("a host report without GPUs");
    return members;
  }
  return {member_of(doc, name)};
}

}  // namespace gputopo::fleet
