#include "report/json_writer.hpp"

#include "report/writers.hpp"

namespace gputopo::report {

model::Json to_json(const model::Report& report) {
  using model::Json;
  Json j;
  j["schema"] = kSchemaVersion;
  j["tool"] = model::to_json(report.tool);
  j["run"] = model::to_json(report.run, report.simulated);

  Json device = Json::object();
  device["simulated"] = model::to_json(model::Attribute::api(report.simulated));
  for (const auto& [key, attribute] : report.device)
    if (key != "simulated") device[key] = model::to_json(attribute);
  j["device"] = std::move(device);
  j["compute"] = model::to_json(report.compute);

  Json memory = Json::object();
  for (const auto& element : report.memory)
    memory[element.key] = model::to_json(element.attributes);
  j["memory"] = std::move(memory);
  j["warnings"] = report.warnings;
  return j;
}

std::string to_json_text(const model::Report& report) { return to_json_text(to_json(report)); }

std::string to_json_text(const model::Json& json) {
  return json.dump(2, ' ', false, model::Json::error_handler_t::replace) + "\n";
}

namespace {
class JsonWriter final : public Writer {
 public:
  std::string_view name() const override { return "json"; }
  bool terminal_text() const override { return false; }
  std::string_view extension() const override { return ".json"; }
  void write(std::ostream& out, const model::Report& report) const override {
    out << to_json_text(report);
  }
};
}  // namespace

std::unique_ptr<Writer> make_json_writer() { return std::make_unique<JsonWriter>(); }

}  // namespace gputopo::report
