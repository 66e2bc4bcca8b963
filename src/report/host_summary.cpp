#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "fleet/compare.hpp"
#include "fleet/fleet_values.hpp"
#include "report/host_text.hpp"
#include "report/summary_text.hpp"
#include "report/text_layout.hpp"

namespace gputopo::report {
namespace {
using model::Json;

// Differences listed under a group's summary; the rest are counted (gputopo compare lists all).
constexpr std::size_t kDifferenceLines = 8;

std::string gpu_list(const std::vector<std::size_t>& gpus) {
  std::string out;
  for (std::size_t i = 0; i < gpus.size();) {
    std::size_t j = i;
    while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j > i + 1    ? fmt::format("{}-{}", gpus[i], gpus[j])
           : j == i + 1 ? fmt::format("{},{}", gpus[i], gpus[j])
                        : std::to_string(gpus[i]);
    i = j + 1;
  }
  return out;
}

std::string name_of(const model::Report& r) {
  const auto* name = model::find(r.device, "name");
  return name && name->value.is_string() ? name->value.get<std::string>() : "?";
}

// The differences among the GPUs of one group, one line each.
std::vector<std::string> differences(const Json& doc, const std::vector<std::size_t>& group) {
  if (group.size() < 2) return {};
  std::vector<fleet::Member> members;
  try {
    const auto all = fleet::members_of(doc, "GPU");
    for (auto g : group)
      if (g < all.size()) members.push_back(all[g]);
  } catch (const std::invalid_argument&) {
    return {};
  }
  const fleet::Comparison c = fleet::compare(members, {});
  std::vector<std::string> lines;
  if (c.differences.empty()) {
    lines.push_back(
        fmt::format("No differences among them ({} attributes compared, tolerance "
                    "{:.0f} %).",
                    c.compared, 100 * c.tolerance));
    return lines;
  }
  lines.push_back(fmt::format("Differences among them ({} of {} attributes):", c.differences.size(),
                              c.compared));
  for (const auto& d : c.differences) {
    if (lines.size() > kDifferenceLines) {
      lines.push_back(fmt::format("  and {} more (gputopo compare on the -o FILE lists them)",
                                  c.differences.size() - kDifferenceLines));
      break;
    }
    std::string text = d.path + ": " + d.basis + " " + d.consensus.dump() + " " + d.unit + ";";
    for (const auto& m : d.members) {
      text += ' ';
      text += m.member;
      text += ' ';
      text += m.value.is_null() ? std::string("not established") : m.value.dump();
    }
    lines.push_back(fit("  " + text, kTextWidth));
  }
  return lines;
}

}  // namespace

void write_host_summary(std::ostream& out, const Json& doc,
                        const std::vector<model::Report>& reports, const std::string& status) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;  // name -> GPUs
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const std::string name = name_of(reports[i]);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == name; });
    if (it == groups.end()) it = groups.insert(groups.end(), {name, {}});
    it->second.push_back(i);
  }
  for (const auto& [name, gpus] : groups) {
    out << fmt::format("=== GPU{} {} ({} x {}{}) ===\n", gpus.size() > 1 ? "s" : "", gpu_list(gpus),
                       gpus.size(), name, status.empty() ? "" : ", " + status);
    if (gpus.size() > 1)
      out << fmt::format("The summary of GPU {}, the first of them:\n", gpus.front());
    write_summary(out, reports[gpus.front()]);
    for (const auto& line : differences(doc, gpus)) out << line << "\n";
    out << "\n";
  }
  write_host_matrices(out, doc["host"]);
}

}  // namespace gputopo::report
