#include <algorithm>
#include <sstream>
#include <string>

#include "model/printable.hpp"
#include "report/format.hpp"
#include "report/html_assets.hpp"
#include "report/html_overview.hpp"
#include "report/html_plots.hpp"
#include "report/summary_text.hpp"
#include "report/tree.hpp"
#include "report/writers.hpp"

// A self-contained HTML page: the summary, the tree, the warnings, the bandwidths against the
// peak and one plot per probe that chased, drawn by the Chart.js inlined into the page (docs/
// formats.md). It opens offline: no CDN, no server.
namespace gputopo::report {
namespace {

// HTML's own escapes, after control characters (a device name's escape sequence) are written as
// text (\x1b), so that the page printed to a terminal moves no cursor; line ends stay (the <pre>
// blocks are lines).
std::string escape_html(const std::string& text) {
  std::string out;
  for (const char c : model::printable_lines(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// JSON that cannot end the <script> element it sits in.
std::string script_json(const model::Json& j) {
  std::string text = j.dump(-1, ' ', false, model::Json::error_handler_t::replace);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') {
      out += "\\u003c";
      continue;
    }
    out += text[i];
  }
  return out;
}

model::Json plot_json(const Plot& p) {
  model::Json series = model::Json::array();
  for (const auto& s : p.series) {
    model::Json xy = model::Json::array();
    for (const auto& [x, y] : s.xy) xy.push_back({x, y});
    series.push_back({{"label", s.label}, {"faint", s.faint}, {"xy", std::move(xy)}});
  }
  model::Json marks = model::Json::array();
  for (const auto& m : p.marks)
    marks.push_back(
        {{"axis", m.axis}, {"value", m.value}, {"lo", m.lo}, {"hi", m.hi}, {"label", m.label}});
  return {{"probe", p.probe}, {"xLabel", p.x_label}, {"xBytes", p.x_bytes},
          {"xLog", p.x_log},  {"series", series},    {"marks", marks}};
}

void write_html_table(std::ostream& out, const std::string& heading,
                      const model::AttributeList& list) {
  if (list.empty()) return;
  out << "<h3>" << escape_html(heading) << "</h3>\n<table>\n"
      << "<tr><th>Attribute</th><th>Value</th><th>Source</th></tr>\n";
  for (const auto& [key, a] : list) {
    std::string source = provenance_mark(a);
    if (source.empty()) source = "driver";
    out << "<tr" << (a.available() ? "" : " class=\"unavailable\"") << "><td>"
        << escape_html(label_for(key)) << "</td><td>" << escape_html(attribute_text(a))
        << "</td><td class=\"source\">" << escape_html(source) << "</td></tr>\n";
  }
  out << "</table>\n";
}

void write_header(std::ostream& out, const model::Report& r, const std::string& title) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
      << escape_html(title) << "</title>\n<style>\n"
      << html_asset("page.css") << "</style>\n<script>\n"
      << html_asset("chart.js") << "\n</script>\n</head>\n<body>\n<h1>" << escape_html(title)
      << "</h1>\n";
  std::string line = r.run.command;
  if (!r.run.timestamp.empty()) line += " at " + r.run.timestamp;
  if (!r.run.status.empty()) line += ", status " + r.run.status;
  if (!line.empty()) out << "<p class=\"run\">" << escape_html(line) << "</p>\n";
  if (r.simulated)
    out << "<p class=\"simulated\"><strong>Simulated GPU</strong>: every value comes from a "
           "model, not from hardware.</p>\n";
}

void write_plots(std::ostream& out, const std::vector<Plot>& plots) {
  out << "<h2 id=\"sweeps\">Sweeps</h2>\n";
  if (plots.empty()) {
    out << "<p>No sweeps: this report was not written by the run that measured it (a JSON "
           "report keeps none). Write the page from the run, or from its --raw recording "
           "(gputopo report DIR).</p>\n";
    return;
  }
  out << "<p class=\"legend-note\">One plot per probe: the median cycles per load of each "
         "request (and its 90th percentile, faint) against what the probe varied; solid lines "
         "mark what the probe found, dotted ones its interval, dashed ones its latencies.</p>\n";
  for (std::size_t i = 0; i < plots.size(); ++i) {
    const auto& p = plots[i];
    out << "<figure id=\"plot-" << escape_html(p.probe) << "\"><canvas data-plot=\"" << i
        << "\" width=\"1000\" height=\"420\"></canvas>\n<figcaption><strong>"
        << escape_html(p.probe) << "</strong> (" << escape_html(p.space) << " space): " << p.batches
        << (p.batches == 1 ? " batch, " : " batches, ") << p.points
        << " points</figcaption></figure>\n";
  }
}

// Cards of the summary's header, then the GPU drawn, the latency staircase, the bandwidths against
// the peak and the memory and compute tables of the text summary.
void write_overview(std::ostream& out, const model::Report& r, std::size_t bars,
                    std::size_t steps) {
  out << "<h2 id=\"overview\">Overview</h2>\n<div class=\"cards\">\n";
  for (const std::string& line : summary_header(r)) {
    const auto space = line.find(' ');
    if (space == std::string::npos || line.front() == ' ') continue;
    out << "<div class=\"card\"><div class=\"card-title\">" << escape_html(line.substr(0, space))
        << "</div><div>" << escape_html(line.substr(line.find_first_not_of(' ', space)))
        << "</div></div>\n";
  }
  out << "</div>\n<h3>The GPU</h3>\n" << gpu_svg(r);
  if (steps > 0)
    out << "<h3>Latency staircase</h3>\n<canvas data-plot=\"staircase\" width=\"1000\" "
           "height=\"380\"></canvas>\n";
  if (bars > 0)
    out << "<h3 id=\"bandwidth\">Bandwidth against the peak</h3>\n<canvas data-plot=\"bandwidth\" "
           "width=\"1000\" height=\""
        << 60 + 28 * bars << "\"></canvas>\n";
  std::ostringstream tables;
  for (const auto& lines : {memory_table(r), compute_table(r)})
    for (const auto& l : lines) tables << l << "\n";
  out << "<h3>Memory and compute</h3>\n<pre class=\"tables\">" << escape_html(tables.str())
      << "</pre>\n";
}

void write_html(std::ostream& out, const model::Report& r) {
  std::string title = "gputopo " + r.tool.version;
  if (const auto* name = model::find(r.device, "name"); name && name->value.is_string())
    title += ": " + name->value.get<std::string>();
  write_header(out, r, title);
  out << "<p><a href=\"#overview\">Overview</a> &middot; "
      << (r.warnings.empty() ? "" : "<a href=\"#warnings\">Warnings</a> &middot; ")
      << "<a href=\"#topology\">Topology</a> &middot; <a href=\"#sweeps\">Sweeps</a> &middot; "
         "<a href=\"#summary\">Summary</a></p>\n";
  const auto bars = bandwidth_bars(r);
  const model::Json steps = staircase(r);
  write_overview(out, r, bars.size(), steps.size());
  if (!r.warnings.empty()) {
    out << "<h2 id=\"warnings\">Warnings</h2>\n<ul class=\"warnings\">\n";
    for (const auto& w : r.warnings) out << "<li>" << escape_html(w) << "</li>\n";
    out << "</ul>\n";
  }
  out << "<h2 id=\"topology\">Topology</h2>\n<pre>";
  std::ostringstream tree;
  write_tree(tree, build_tree(r, false), false);
  out << escape_html(tree.str()) << "</pre>\n";
  const model::Json slices = slice_map(r);
  if (!slices.is_null())
    out << "<h3 id=\"slices\">Each SM's latency to each L2 slice</h3>\n<canvas "
           "data-plot=\"slices\" "
           "width=\"1000\" height=\""
        << 70 + std::min<std::size_t>(8 * slices["sms"].size(), 600) << "\"></canvas>\n";
  const auto plots = build_plots(r);
  write_plots(out, plots);
  out << "<h2 id=\"summary\">Summary</h2>\n";
  write_html_table(out, "General", r.device);
  write_html_table(out, "Compute", r.compute);
  for (const auto& e : r.memory) write_html_table(out, "Memory: " + label_for(e.key), e.attributes);
  out << "<p class=\"legend-note\">Source: driver (CUDA runtime, NVML); [table] published per "
         "architecture; [derived] computed from other values; [measured c] measured with "
         "confidence c.</p>\n";
  model::Json data = {{"plots", model::Json::array()},
                      {"bandwidth", model::Json::array()},
                      {"staircase", steps},
                      {"slices", slices}};
  for (const auto& p : plots) data["plots"].push_back(plot_json(p));
  for (const auto& b : bars)
    data["bandwidth"].push_back({{"label", b.label}, {"gbps", b.gbps}, {"peak", b.peak}});
  out << "<script id=\"gputopo-data\" type=\"application/json\">" << script_json(data)
      << "</script>\n<script>\n"
      << html_asset("page.js") << "</script>\n</body>\n</html>\n";
}

class HtmlWriter final : public Writer {
 public:
  std::string_view name() const override { return "html"; }
  bool terminal_text() const override { return false; }
  std::string_view extension() const override { return ".html"; }
  void write(std::ostream& out, const model::Report& report) const override {
    write_html(out, report);
  }
};

}  // namespace

std::unique_ptr<Writer> make_html_writer() { return std::make_unique<HtmlWriter>(); }

}  // namespace gputopo::report
