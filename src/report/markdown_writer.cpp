#include <string>

#include "report/format.hpp"
#include "report/writers.hpp"

// The summary as GitHub-flavoured Markdown, for pasting into an issue: one table per group.
namespace gputopo::report {
namespace {

std::string cell(std::string text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

void write_table(std::ostream& out, const std::string& heading, const model::AttributeList& list) {
  if (list.empty()) return;
  out << "\n## " << heading << "\n\n| Attribute | Value | Source |\n|---|---|---|\n";
  for (const auto& [key, a] : list) {
    std::string source = provenance_mark(a);
    if (source.empty()) source = "driver";
    out << "| " << cell(label_for(key)) << " | " << cell(attribute_text(a)) << " | " << cell(source)
        << " |\n";
  }
}

void write_markdown(std::ostream& out, const model::Report& r) {
  std::string title = "gputopo " + r.tool.version;
  if (const auto* name = model::find(r.device, "name"); name && name->value.is_string())
    title += ": " + name->value.get<std::string>();
  out << "# " << cell(title) << "\n\n";
  if (r.simulated) out << "> **Simulated GPU**: every value comes from a model, not hardware.\n\n";
  std::string line = r.run.command;
  if (!r.run.timestamp.empty()) line += " at " + r.run.timestamp;
  if (!r.run.status.empty()) line += ", status `" + r.run.status + "`";
  if (!line.empty()) out << cell(line) << "\n";
  write_table(out, "General", r.device);
  write_table(out, "Compute", r.compute);
  for (const auto& e : r.memory) write_table(out, "Memory: " + label_for(e.key), e.attributes);
  if (!r.warnings.empty()) {
    out << "\n## Warnings\n\n";
    for (const auto& w : r.warnings) out << "- " << cell(w) << "\n";
  }
  out << "\nSource: driver (CUDA runtime, NVML); [table] published per architecture; [derived] "
         "computed from other values; [measured c] measured with confidence c.\n";
}

class MarkdownWriter final : public Writer {
 public:
  std::string_view name() const override { return "markdown"; }
  std::string_view extension() const override { return ".md"; }
  void write(std::ostream& out, const model::Report& report) const override {
    write_markdown(out, report);
  }
};

}  // namespace

std::unique_ptr<Writer> make_markdown_writer() { return std::make_unique<MarkdownWriter>(); }

}  // namespace gputopo::report
