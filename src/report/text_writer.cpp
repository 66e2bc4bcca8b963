#include "report/text_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/format.hpp"
#include "report/summary_text.hpp"
#include "report/tree.hpp"
#include "report/writers.hpp"

namespace gputopo::report {
namespace {
using model::Attribute;
using model::Json;

struct Row {
  int indent = 0;
  std::string label;
  std::string value;  // empty for a heading
  std::string mark;
  bool heading = false;
};

void add_group(std::vector<Row>& rows, int indent, const std::string& heading,
               const model::AttributeList& list) {
  rows.push_back({indent, heading, "", "", true});
  for (const auto& [key, a] : list)
    rows.push_back({indent + 2, label_for(key), attribute_text(a), provenance_mark(a)});
}

void write_banner(std::ostream& out, const model::Report& r) {
  std::string what = "SIMULATED GPU: every value below comes from a model, not from hardware";
  if (r.run.sim && !r.run.sim->preset.empty()) what += " (" + r.run.sim->preset + ")";
  std::string bar(what.size() + 8, '#');
  out << bar << "\n##  " << what << "  ##\n" << bar << "\n\n";
}

void write_title(std::ostream& out, const model::Report& r) {
  std::string title = "gputopo";
  if (!r.tool.version.empty()) title += " " + r.tool.version;
  if (const auto& g = r.tool.git_describe; !g.empty() && g != "unknown") title += " (" + g + ")";
  if (const Attribute* name = model::find(r.device, "name"); name && name->value.is_string())
    title += "  |  " + name->value.get<std::string>();
  if (r.run.device) title += fmt::format("  |  GPU {}", *r.run.device);
  out << title << "\n";
  std::string line = r.run.command;
  if (const std::string& t = r.run.timestamp; !t.empty()) line += (line.empty() ? "" : " at ") + t;
  if (const std::string& h = r.run.host; !h.empty()) line += " on " + h;
  if (r.run.duration_seconds)
    line += (line.empty() ? "discovery " : ", ") + format_number(*r.run.duration_seconds) + " s";
  if (!line.empty()) out << line << "\n";
  if (const std::string& status = r.run.status; !status.empty() && status != "complete")
    out << "PARTIAL RESULTS: the run " << status << "; what was measured before is below\n";
  out << "\n";
}

}  // namespace

void write_text_heading(std::ostream& out, const model::Report& report) {
  if (report.simulated) write_banner(out, report);
  write_title(out, report);
}

void write_text(std::ostream& out, const model::Report& report) {
  write_text_heading(out, report);

  std::vector<Row> rows;
  add_group(rows, 0, "General", report.device);
  add_group(rows, 0, "Compute", report.compute);
  if (!report.memory.empty()) {
    rows.push_back({0, "Memory", "", "", true});
    for (const auto& e : report.memory) add_group(rows, 2, label_for(e.key), e.attributes);
  }

  std::size_t label_width = 0;
  std::size_t value_width = 0;
  for (const auto& row : rows) {
    if (row.heading) continue;
    label_width = std::max(label_width, row.indent + row.label.size());
    if (!row.mark.empty()) value_width = std::max(value_width, row.value.size());
  }
  value_width = std::min<std::size_t>(value_width, 40);

  bool first = true;
  for (const auto& row : rows) {
    std::string pad(static_cast<std::size_t>(row.indent), ' ');
    if (row.heading) {
      if (row.indent == 0 && !first) out << "\n";
      out << pad << row.label << "\n";
    } else {
      std::string line = pad + fmt::format("{:<{}}  ", row.label, label_width - pad.size());
      line += row.mark.empty() ? row.value
                               : fmt::format("{:<{}}  {}", row.value, value_width, row.mark);
      out << line << "\n";
    }
    first = false;
  }

  out << "\nTopology\n";
  write_tree(out, build_tree(report, false), false, 2);

  if (!report.warnings.empty()) {
    out << "\nWarnings\n";
    for (const auto& w : report.warnings) out << "  - " << w << "\n";
  }
  out << "\nUnmarked: from the driver (CUDA runtime, NVML). [table]: published per architecture.\n"
         "[derived]: computed from other values. [measured c]: measured, with confidence c.\n";
  if (report.simulated) out << "SIMULATED: none of these values describe real hardware.\n";
}

namespace {
class TextWriter final : public Writer {
 public:
  explicit TextWriter(bool full) : full_(full) {}
  std::string_view name() const override { return full_ ? "text-full" : "text"; }
  std::string_view extension() const override { return full_ ? ".full.txt" : ".txt"; }
  void write(std::ostream& out, const model::Report& report) const override {
    if (full_)
      write_text(out, report);
    else
      write_summary(out, report);
  }

 private:
  bool full_;
};
}  // namespace

std::unique_ptr<Writer> make_text_writer(bool full) { return std::make_unique<TextWriter>(full); }

}  // namespace gputopo::report
