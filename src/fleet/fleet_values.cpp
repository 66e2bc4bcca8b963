#include "fleet/fleet_values.hpp"

#include <array>
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

// One attribute, or nothing where it is not one scalar (per-SM lists, pipeline tables).
std::optional<Value> value_of(const std::string& path, const Json& attr) {
  if (!attr.is_object() || !attr.contains("value")) return std::nullopt;
  const Json& v = attr["value"];
  if (!v.is_null() && !v.is_number() && !v.is_string() && !v.is_boolean()) return std::nullopt;
  Value out{path,
            v,
            text_or_empty(attr, "unit"),
            text_or_empty(attr, "source"),
            std::nullopt,
            text_or_empty(attr, "reason")};
  const auto it = attr.find("interval");
  if (it != attr.end() && it->is_array() && it->size() == 2 && (*it)[0].is_number() &&
      (*it)[1].is_number())
    out.interval = std::make_pair((*it)[0].get<double>(), (*it)[1].get<double>());
  return out;
}

void add_section(const Json& section, const std::string& prefix, std::string_view name,
                 std::vector<Value>& out) {
  if (!section.is_object()) return;
  for (const auto& [key, attr] : section.items())
    if (compared(name, key))
      if (auto v = value_of(prefix + key, attr)) out.push_back(std::move(*v));
}

Member member_of(const Json& report, const std::string& name) {
  if (!report.is_object() || !report.contains("device") || !report.contains("memory"))
    throw std::invalid_argument("not a gputopo report (no device and memory sections)");
  Member m{name, {}};
  for (const char* section : {"device", "compute"})
    if (report.contains(section))
      add_section(report[section], std::string(section) + ".", section, m.values);
  if (report["memory"].is_object())
    for (const auto& [element, attrs] : report["memory"].items())
      add_section(attrs, "memory." + element + ".", "memory", m.values);
  return m;
}

}  // namespace

std::vector<Member> members_of(const Json& doc, const std::string& name) {
  if (doc.is_object() && doc.contains("gpus") && doc["gpus"].is_array()) {
    std::vector<Member> members;
    for (std::size_t i = 0; i < doc["gpus"].size(); ++i)
      members.push_back(member_of(doc["gpus"][i], name + "#" + std::to_string(i)));
    if (members.empty()) throw std::invalid_argument("a host report without GPUs");
    return members;
  }
  return {member_of(doc, name)};
}

}  // namespace gputopo::fleet
