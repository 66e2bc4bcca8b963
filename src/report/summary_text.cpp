#include "report/summary_text.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/format.hpp"
#include "report/text_layout.hpp"
#include "report/text_writer.hpp"
#include "report/tree.hpp"

namespace gputopo::report {
namespace {
using model::Attribute;

const Attribute* available(const model::AttributeList& list, std::string_view key) {
  const Attribute* a = model::find(list, key);
  return a && a->available() ? a : nullptr;
}

std::string value_of(const model::AttributeList& list, std::string_view key) {
  const Attribute* a = available(list, key);
  return a ? format_value(a->value, a->unit) : "";
}

std::string join_parts(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string gpu_line(const model::Report& r) {
  std::string arch = value_of(r.device, "architecture");
  if (std::string cc = value_of(r.device, "computeCapability"); !cc.empty())
    arch += (arch.empty() ? "" : ", ") + std::string("compute capability ") + cc;
  std::string driver = value_of(r.device, "driverVersion");
  if (std::string cuda = value_of(r.device, "driverCudaVersion"); !cuda.empty())
    driver += (driver.empty() ? "" : ", ") + std::string("CUDA ") + cuda;
  if (!driver.empty()) driver = "driver " + driver;
  return join_parts({value_of(r.device, "name"), arch, driver}, "; ");
}

std::string clocks_line(const model::Report& r) {
  std::string sm = value_of(r.device, "smClock");
  if (std::string max = value_of(r.device, "smClockMax"); !max.empty() && max != sm)
    sm += " (max " + max + ")";
  std::string mem = value_of(r.device, "memoryClock");
  if (std::string max = value_of(r.device, "memoryClockMax"); !max.empty() && max != mem)
    mem += " (max " + max + ")";
  return join_parts({sm.empty() ? "" : "SM " + sm, mem.empty() ? "" : "memory " + mem}, ", ");
}

std::string memory_line(const model::Report& r) {
  std::string bus = value_of(r.device, "memoryBusWidth");
  if (const Attribute* b = available(r.device, "memoryBusWidth"); b && b->value.is_number())
    bus = format_number(b->value.get<double>()) + "-" + b->unit + " bus";
  std::string ecc = value_of(r.device, "ecc");
  const model::Element* dram = nullptr;
  for (const auto& e : r.memory)
    if (e.key == "dram") dram = &e;
  std::string peak = dram ? value_of(dram->attributes, "peakBandwidth") : "";
  return join_parts({value_of(r.device, "memorySize"), bus, peak.empty() ? "" : "peak " + peak,
                     ecc.empty() ? "" : "ECC " + ecc},
                    ", ");
}

std::string sm_line(const model::Report& r) {
  const auto count = [&](std::string_view key, const char* what) {
    std::string v = value_of(r.compute, key);
    return v.empty() ? v : v + " " + what;
  };
  std::string cores = count("coresPerSm", "cores/SM");
  if (std::string all = value_of(r.compute, "cores"); !all.empty()) cores += " (" + all + ")";
  std::string tpcs = count("tpcCount", "TPCs");
  if (std::string per = value_of(r.compute, "smsPerTpc"); !tpcs.empty() && !per.empty())
    tpcs += " of " + per + " SMs";
  std::string gpcs = count("gpcCount", "GPCs");
  if (gpcs.empty()) {
    const auto& found = r.topology.gpcs;
    if (!found.empty()) gpcs = fmt::format("{} GPCs found (count not established)", found.size());
  }
  return join_parts({count("smCount", "SMs"), tpcs, gpcs, cores}, ", ");
}

}  // namespace

std::vector<std::string> summary_header(const model::Report& r) {
  std::vector<std::string> rows;
  const std::pair<const char*, std::string> parts[] = {{"GPU", gpu_line(r)},
                                                       {"Clocks", clocks_line(r)},
                                                       {"Memory", memory_line(r)},
                                                       {"SMs", sm_line(r)}};
  for (const auto& [label, text] : parts)
    if (!text.empty()) {
      const auto lines = wrap(text, kTextWidth, fmt::format("{:<8}", label), std::string(8, ' '));
      rows.insert(rows.end(), lines.begin(), lines.end());
    }
  return rows;
}

std::string cell(const Attribute* a) {
  if (!a) return "";
  if (!a->available()) return "?";
  std::string text = format_value(a->value, a->unit);
  if (a->value.is_number() && a->unit != "B") {
    const double v = a->value.get<double>();
    text = short_number(v) + (a->unit.empty() ? "" : " " + a->unit);
  }
  if (a->interval && std::isinf(a->interval->hi) && !std::isinf(a->interval->lo))
    text = ">= " + text;
  return text;
}

void write_summary(std::ostream& out, const model::Report& report) {
  write_text_heading(out, report);
  write_fitted(out, summary_header(report));
  const auto memory = memory_table(report);
  if (!memory.empty()) {
    out << "\n";
    write_fitted(out, memory);
  }
  const auto compute = compute_table(report);
  if (!compute.empty()) {
    out << "\n";
    write_fitted(out, compute);
  }
  if (std::string topology = topology_line(report); !topology.empty()) {
    out << "\n";
    write_fitted(out, wrap(topology, kTextWidth, "Topology  ", std::string(10, ' ')));
  }
  if (!report.warnings.empty()) {
    out << "\nWarnings\n";
    for (const auto& w : report.warnings)
      write_fitted(out, wrap(short_reason(w, 2 * kTextWidth - 8), kTextWidth, "  - ", "    "));
  }
  const auto note = not_measured_note(report);
  if (!note.empty()) {
    out << "\n";
    write_fitted(out, note);
  }
  out << "\nEvery value with its source, confidence and interval: gputopo -v; every reason whole: "
         "--json.\n";
  if (report.simulated) out << "SIMULATED: none of these values describe real hardware.\n";
}

}  // namespace gputopo::report
