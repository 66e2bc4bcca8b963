#include "report/host_text.hpp"

#include <fmt/format.h>

namespace gputopo::report {
namespace {

using model::Json;

// Three significant digits, and whole numbers from 100 up (856 ns, 1012 ns, 381 GB/s, 5.89 us).
std::string number(double x) {
  return x >= 100 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
}

// "53.9 GB/s (52.1-54.0, 5 samples, confidence 0.97)" or "not established: why".
std::string host_value_text(const Json& v) {
  if (v["value"].is_null()) return "not established: " + v["reason"].get<std::string>();
  return fmt::format("{} {} ({}-{}, {} samples, confidence {:.2f})",
                     number(v["value"].get<double>()), v["unit"].get<std::string>(),
                     number(v["interval"][0].get<double>()), number(v["interval"][1].get<double>()),
                     v["samples"].get<int>(), v["confidence"].get<double>());
}

std::string link_text(const Json& link) {
  if (link.contains("notEstablished"))
    return "link not established: " + link["notEstablished"].get<std::string>();
  if (link["type"] == "NVLink")
    return fmt::format("NVLink {} x {}",
                       link["generation"].is_null() ? std::string("?") : link["generation"].dump(),
                       link["count"].get<int>());
  return link["type"].get<std::string>();
}

void write_host_links(std::ostream& out, const Json& host) {
  for (const auto& h : host["hostLinks"]) {
    out << fmt::format("  GPU {} host link\n", h["gpu"].get<int>());
    for (const char* key :
         {"pinnedH2dGBps", "pinnedD2hGBps", "pageableH2dGBps", "pageableD2hGBps", "latencyUs"})
      out << fmt::format("    {:<18}{}\n", key, host_value_text(h[key]));
    const Json& numa = h["numa"];
    if (numa.contains("notEstablished"))
      out << "    NUMA dependence   not established: " << numa["notEstablished"].get<std::string>()
          << "\n";
    else
      out << fmt::format(
          "    NUMA dependence   {} (nodes differ by {:.1f} %, threshold {:.1f} %)\n",
          numa["dependsOnNode"].get<bool>() ? "yes" : "no", 100 * numa["difference"].get<double>(),
          100 * numa["threshold"].get<double>());
  }
}

void write_peers(std::ostream& out, const Json& host) {
  if (host["peers"].empty()) {
    out << "  Peers: none (one GPU: the peer matrix is 1 x 1)\n";
    return;
  }
  out << "  Peers (from -> to: link, access, atomics, read, write, bidirectional, copy latency, "
         "load latency)\n";
  for (const auto& p : host["peers"]) {
    out << fmt::format("    {} -> {}: ", p["from"].get<int>(), p["to"].get<int>());
    if (p.contains("notEstablished")) {
      out << "not established: " << p["notEstablished"].get<std::string>() << "\n";
      continue;
    }
    out << fmt::format("{}, access {}, atomics {}\n", link_text(p["link"]),
                       p["access"].get<bool>() ? "yes" : "no",
                       p["atomics"].get<bool>() ? "yes" : "no");
    for (const char* key :
         {"readGBps", "writeGBps", "bidirectionalGBps", "latencyUs", "loadLatencyNs"})
      out << fmt::format("      {:<18}{}\n", key, host_value_text(p[key]));
  }
}

}  // namespace

void write_host_text(std::ostream& out, const Json& host) {
  out << fmt::format("Host: {} GPU(s)\n", host["gpuCount"].get<int>());
  for (const auto& g : host["gpus"]) {
    const Json& l = g["locality"];
    out << fmt::format("  GPU {}: {}, {}; ", g["index"].get<int>(), g["name"].get<std::string>(),
                       g["status"].get<std::string>());
    out << (l.contains("notEstablished")
                ? "locality not established: " + l["notEstablished"].get<std::string>()
                : "NUMA node " + l["numaNodes"].get<std::string>() +
                      (l.contains("cpus") ? ", CPUs " + l["cpus"].get<std::string>() : ""))
        << "\n";
  }
  for (const auto& group : host["identical"]) out << "  identical GPUs: " << group.dump() << "\n";
  write_host_links(out, host);
  write_peers(out, host);
  if (host["outliers"].empty())
    out << "  Outliers: none\n";
  else
    for (const auto& o : host["outliers"])
      out << fmt::format("  Outlier: {}: {:.3g} GB/s against a median of {:.3g} GB/s\n",
                         o["what"].get<std::string>(), o["GBps"].get<double>(),
                         o["groupMedianGBps"].get<double>());
}

}  // namespace gputopo::report
