#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

// A discovery's golden JSON report made whole again: data/golden/<stem>.json with the findings of
// each data/golden/<stem>/<probe>.json put back (docs/testing.md, "Golden reports"). The probes'
// phases are not put back; each finding goes last in its section.
namespace gputopo::cli::golden {

inline nlohmann::ordered_json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::ordered_json::parse(in);
}

// Puts the findings of `probe` ({"findings": {"l1.size": ..., "compute.gpcCount": ...}}) back
// into `report`.
inline void put_back(nlohmann::ordered_json& report, const nlohmann::ordered_json& probe) {
  if (!probe.contains("findings")) return;
  for (const auto& [path, attribute] : probe["findings"].items()) {
    const auto dot = path.find('.');
    const std::string element = path.substr(0, dot);
    const std::string key = path.substr(dot + 1);
    if (element == "compute")
      report["compute"][key] = attribute;
    else
      report["memory"][element][key] = attribute;
  }
}

inline nlohmann::ordered_json whole_report(const std::filesystem::path& golden_dir,
                                           const std::string& stem) {
  auto report = read_json(golden_dir / (stem + ".json"));
  if (std::filesystem::is_directory(golden_dir / stem))
    for (const auto& entry : std::filesystem::directory_iterator(golden_dir / stem))
      put_back(report, read_json(entry.path()));
  return report;
}

}  // namespace gputopo::cli::golden
