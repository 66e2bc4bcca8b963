#include <sstream>

#include "api/report_data.hpp"
#include "report/format.hpp"
#include "report/json_writer.hpp"
#include "report/text_writer.hpp"

namespace gputopo {
namespace {

const model::AttributeList* section_of(const model::Report& r, std::string_view section) {
  if (section == "device") return &r.device;
  if (section == "compute") return &r.compute;
  for (const auto& e : r.memory)
    if (e.key == section) return &e.attributes;
  return nullptr;
}

Value value_of(const model::Attribute& a) {
  Value v;
  v.available = a.available();
  if (a.value.is_number()) v.number = a.value.get<double>();
  v.text = v.available ? report::format_value(a.value, a.unit) : std::string();
  v.unit = a.unit;
  v.source = std::string(model::to_string(a.source));
  v.confidence = a.confidence;
  if (a.interval) v.interval = std::pair{a.interval->lo, a.interval->hi};
  v.method = a.method;
  v.reason = a.reason;
  return v;
}

}  // namespace

Error::Error(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}

Report::Report(std::shared_ptr<const Data> data) : data_(std::move(data)) {}

Value Report::get(std::string_view section, std::string_view key) const {
  const auto* list = section_of(data_->report, section);
  if (list == nullptr) {
    Value none;
    none.reason = "the report has no section or element " + std::string(section);
    return none;
  }
  if (const auto* a = model::find(*list, key)) return value_of(*a);
  Value none;
  none.reason = std::string(section) + " has no attribute " + std::string(key) + " in this report";
  return none;
}

std::optional<double> Report::number(std::string_view section, std::string_view key) const {
  const Value v = get(section, key);
  return v.available ? v.number : std::nullopt;
}

std::vector<std::string> Report::elements() const {
  std::vector<std::string> out;
  for (const auto& e : data_->report.memory) out.push_back(e.key);
  return out;
}

std::vector<std::string> Report::keys(std::string_view section) const {
  std::vector<std::string> out;
  if (const auto* list = section_of(data_->report, section))
    for (const auto& [key, a] : *list) out.push_back(key);
  return out;
}

bool Report::simulated() const { return data_->report.simulated; }

std::vector<std::string> Report::warnings() const { return data_->report.warnings; }

std::string Report::json() const { return report::to_json_text(data_->report); }

std::string Report::text() const {
  std::ostringstream out;
  report::write_text(out, data_->report);
  return out.str();
}

}  // namespace gputopo
