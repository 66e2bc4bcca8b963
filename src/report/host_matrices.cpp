#include <fmt/format.h>

#include <functional>

#include "report/host_text.hpp"
#include "report/text_layout.hpp"

namespace gputopo::report {
namespace {
using model::Json;

// "NV18" for 18 NVLinks, as nvidia-smi topo -m writes them; the type otherwise; "?" unknown.
std::string link_cell(const Json& p) {
  if (p.contains("notEstablished") || !p.contains("link")) return "?";
  const Json& link = p["link"];
  if (link.contains("notEstablished")) return "?";
  if (link.value("type", "") == "NVLink" && link.contains("count"))
    return "NV" + std::to_string(link["count"].get<int>());
  return link.value("type", "?");
}

std::string value_cell(const Json& v, double scale = 1) {
  if (!v.is_object() || !v.contains("value") || !v["value"].is_number()) return "?";
  return short_number(v["value"].get<double>() * scale);
}

// One matrix, rows `from` and columns `to`, as nvidia-smi topo -m and nvbandwidth lay theirs.
std::vector<std::string> matrix(const Json& host, const std::string& title,
                                const std::function<std::string(const Json&)>& of) {
  const int n = host["gpuCount"].get<int>();
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>{title});
  for (int to = 0; to < n; ++to) rows[0].push_back("GPU" + std::to_string(to));
  for (int from = 0; from < n; ++from) {
    std::vector<std::string> row{"GPU" + std::to_string(from)};
    for (int to = 0; to < n; ++to) row.push_back(from == to ? "X" : "");
    rows.push_back(std::move(row));
  }
  for (const auto& p : host["peers"]) {
    const int from = p["from"].get<int>();
    const int to = p["to"].get<int>();
    if (from < n && to < n)
      rows[static_cast<std::size_t>(from) + 1][static_cast<std::size_t>(to) + 1] = of(p);
  }
  std::vector<bool> right(static_cast<std::size_t>(n) + 1, true);
  right[0] = false;
  return align(rows, right);
}

std::string numa_cell(const Json& g) {
  const Json& l = g["locality"];
  if (l.contains("notEstablished")) return "?";
  return l.value("numaNodes", "?") +
         (l.contains("cpus") ? " (CPUs " + l["cpus"].get<std::string>() + ")" : "");
}

std::vector<std::string> host_link_table(const Json& host) {
  std::vector<std::vector<std::string>> rows{{"Host links", "NUMA node", "pinned H2D", "D2H",
                                              "pageable H2D", "D2H", "latency", "NUMA dependence"},
                                             {"", "", "GB/s", "GB/s", "GB/s", "GB/s", "us", ""}};
  for (const auto& h : host["hostLinks"]) {
    const int gpu = h["gpu"].get<int>();
    std::string numa = "?";
    for (const auto& g : host["gpus"])
      if (g["index"] == gpu) numa = numa_cell(g);
    const Json& dep = h["numa"];
    const std::string depends =
        dep.contains("notEstablished")
            ? "? " + short_reason(dep["notEstablished"].get<std::string>(), 30)
            : (dep["dependsOnNode"].get<bool>() ? "yes" : "no") +
                  fmt::format(" ({:.1f} %)", 100 * dep["difference"].get<double>());
    rows.push_back({"GPU" + std::to_string(gpu), numa, value_cell(h["pinnedH2dGBps"]),
                    value_cell(h["pinnedD2hGBps"]), value_cell(h["pageableH2dGBps"]),
                    value_cell(h["pageableD2hGBps"]), value_cell(h["latencyUs"]), depends});
  }
  return align(rows, {false, false, true, true, true, true, true, false});
}

}  // namespace

void write_host_matrices(std::ostream& out, const Json& host) {
  out << fmt::format("Host: {} GPU(s)\n", host["gpuCount"].get<int>());
  if (!host["peers"].empty()) {
    out << "\n";
    write_fitted(out, matrix(host, "Link", link_cell));
    out << "\n";
    write_fitted(out, matrix(host, "Read GB/s", [](const Json& p) {
                   return p.contains("readGBps") ? value_cell(p["readGBps"]) : "?";
                 }));
    out << "\n";
    write_fitted(out, matrix(host, "Load ns", [](const Json& p) {
                   return p.contains("loadLatencyNs") ? value_cell(p["loadLatencyNs"]) : "?";
                 }));
    out << "Rows read from columns: Read is the column's memory copied into the row's GPU; Load "
           "is a\ndependent load of the row's GPU from the column's memory. -v gives every peer "
           "figure.\n";
  }
  out << "\n";
  write_fitted(out, host_link_table(host));
  if (host["outliers"].empty())
    out << "Outliers: none\n";
  else
    for (const auto& o : host["outliers"])
      write_fitted(out, {fmt::format("Outlier: {}: {:.3g} GB/s against a median of {:.3g} GB/s",
                                     o["what"].get<std::string>(), o["GBps"].get<double>(),
                                     o["groupMedianGBps"].get<double>())});
}

}  // namespace gputopo::report
