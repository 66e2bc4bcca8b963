#include "fleet/comparison_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace gputopo::fleet {
namespace {

using model::Json;

Json interval_json(const std::optional<std::pair<double, double>>& i) {
  return i ? Json::array({i->first, i->second}) : Json();
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

std::string deviation_text(const Deviation& d) {
  std::string s = d.member + " " + shown(d.value);
  std::vector<std::string> notes;
  if (d.relative) notes.push_back(fmt::format("{:+.1f} %", 100 * *d.relative));
  if (d.interval)
    notes.push_back("interval " + shown(d.interval->first) + "-" + shown(d.interval->second));
  if (d.value.is_null() && !d.reason.empty()) notes.push_back(d.reason);
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
      if (m.interval) j["interval"] = interval_json(m.interval);
      if (m.value.is_null()) j["reason"] = m.reason;
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
  return Json{{"members", c.members},
              {"tolerance", c.tolerance},
              {"compared", c.compared},
              {"differences", std::move(diffs)},
              {"outliers", std::move(outliers)}};
}

void write_comparison_text(std::ostream& out, const Comparison& c) {
  out << fmt::format("{} GPUs ({}): {} attributes compared, {} differ (tolerance {:g} %)\n",
                     c.members.size(), fmt::join(c.members, ", "), c.compared, c.differences.size(),
                     100 * c.tolerance);
  for (const Difference& d : c.differences) {
    std::vector<std::string> who;
    for (const Deviation& m : d.members) who.push_back(deviation_text(m));
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
