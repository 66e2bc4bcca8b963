#include "fleet/comparison_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace gputopo::fleet {
namespace {

using model::Json;

// An open bound (infinite) is null, as in the reports.
Json bound_json(double b) { return std::isfinite(b) ? Json(b) : Json(); }

Json interval_json(const std::optional<std::pair<double, double>>& i) {
  return i ? Json::array({bound_json(i->first), bound_json(i->second)}) : Json();
}

// Numbers with up to four significant digits, whole from 10^4 to 10^15; strings as they are.
std::string shown(const Json& v) {
  if (v.is_null()) return "not established";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  const double x = v.get<double>();
  if (std::abs(x) >= 1e4 && std::abs(x) < 1e15) return fmt::format("{:.0f}", x);
  return fmt::format("{:.4g}", x);
}

std::string deviation_text(const Deviation& d, double consensus) {
  std::string s = d.member + " " + shown(d.value);
  std::vector<std::string> notes;
  if (d.relative) notes.push_back(fmt::format("{:+.1f} %", 100 * *d.relative));
  if (d.scale && *d.scale > 0 && d.value.is_number())
    notes.push_back(
        fmt::format("{:.1f} sd", std::abs(d.value.get<double>() - consensus) / *d.scale));
  if (d.interval)
    notes.push_back("interval " + shown(d.interval->first) + "-" + shown(d.interval->second));
  if (!notes.empty()) s += " (" + fmt::format("{}", fmt::join(notes, ", ")) + ")";
  return s;
}

}  // namespace

Json comparison_json(const Comparison& c) {
  Json diffs = Json::array();
  for (const Difference& d : c.differences) {
    Json members = Json::array();
    for (const Deviation& m : d.members) {
      Json j = {{"member", m.member}, {"value", m.value}};
      if (m.relative) j["relative"] = *m.relative;
      if (m.scale) j["scale"] = bound_json(*m.scale);
      if (m.interval) j["interval"] = interval_json(m.interval);
      members.push_back(std::move(j));
    }
    diffs.push_back(Json{{"attribute", d.path},
                         {"unit", d.unit},
                         {"consensus", d.consensus},
                         {"basis", d.basis},
                         {"members", std::move(members)}});
  }
  Json outliers = Json::array();
  for (const Outlier& o : c.outliers)
    outliers.push_back(Json{{"member", o.member}, {"differences", o.differences}});
  Json j{{"members", c.members},
         {"tolerance", c.tolerance},
         {"threshold", c.threshold},
         {"compared", c.compared},
         {"differences", std::move(diffs)},
         {"outliers", std::move(outliers)}};
  if (!c.healthy.empty()) j["healthySpreadFrom"] = c.healthy;
  return j;
}

void write_comparison_text(std::ostream& out, const Comparison& c) {
  out << fmt::format(
      "{} GPUs ({}): {} attributes compared, {} differ (beyond {:g} sd and {:g} %)\n",
      c.members.size(), fmt::join(c.members, ", "), c.compared, c.differences.size(), c.threshold,
      100 * c.tolerance);
  if (!c.healthy.empty())
    out << fmt::format("Noise counted: at least how far healthy GPUs of this model spread ({})\n",
                       c.healthy);
  for (const Difference& d : c.differences) {
    std::vector<std::string> who;
    const double consensus = d.consensus.is_number() ? d.consensus.get<double>() : 0;
    for (const Deviation& m : d.members) who.push_back(deviation_text(m, consensus));
    const std::string unit = d.unit.empty() ? "" : " " + d.unit;
    out << fmt::format("  {}: {}{} ({}); {}\n", d.path, shown(d.consensus),
                       d.consensus.is_null() ? "" : unit, d.basis, fmt::join(who, "; "));
  }
  if (c.outliers.empty()) {
    out << "No outliers: every GPU agrees with the consensus.\n";
    return;
  }
  std::vector<std::string> outliers;
  for (const Outlier& o : c.outliers)
    outliers.push_back(
        fmt::format("{} ({} attribute{})", o.member, o.differences, o.differences == 1 ? "" : "s"));
  out << fmt::format("Outliers: {}\n", fmt::join(outliers, ", "));
}

}  // namespace gputopo::fleet
