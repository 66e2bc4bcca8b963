// The text and JSON reports of every simulated preset, against the reports recorded under
// data/golden/. They must match byte for byte once the fields that change from run to run (tool
// version, timestamp, host, durations) are masked. A discovery's JSON report is recorded cut in
// two: each probe's findings and phase status in <stem>/<probe>.json, the rest in <stem>.json
// (docs/testing.md, "Goldens"). GPUTOPO_UPDATE_GOLDEN=1 records them again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "cli/commands.hpp"
#include "cli/device_source.hpp"
#include "device/sim/sim_device.hpp"
#include "model/attribute.hpp"
#include "probe_goldens.hpp"
#include "whole_report.hpp"

namespace gputopo::cli {
namespace {
namespace fs = std::filesystem;

const fs::path kGoldenDir = fs::path(GPUTOPO_TEST_DATA) / "golden";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool updating() { return std::getenv("GPUTOPO_UPDATE_GOLDEN") != nullptr; }

std::string json_text(const model::Json& j) { return j.dump(2) + "\n"; }

// The JSON report with what differs between identical runs replaced by "<masked>".
model::Json masked_json(const std::string& text) {
  model::Json j = model::Json::parse(text);
  j["tool"] = "<masked>";
  for (const char* key : {"timestamp", "host", "durationSeconds"})
    if (j["run"].contains(key)) j["run"][key] = "<masked>";
  for (auto& phase : j["run"]["phases"]) phase["seconds"] = "<masked>";
  if (j["run"].contains("guard")) j["run"]["guard"]["seconds"] = "<masked>";
  return j;
}

// The text report with the title's tool version and the run line's time, host and duration
// masked.
std::string masked_text(const std::string& text) {
  constexpr auto kMultiline = std::regex::ECMAScript | std::regex::multiline;
  static const std::regex title(R"(^gputopo [^|\n]*\|)", kMultiline);
  static const std::regex run_line(R"(^(\w+) at \S+ on .*, [0-9.e+-]+ s$)", kMultiline);
  std::string out = std::regex_replace(text, title, "gputopo <masked> |",
                                       std::regex_constants::format_first_only);
  return std::regex_replace(out, run_line, "$1 at <masked>", std::regex_constants::format_default);
}

void compare_or_update(const std::string& name, const std::string& actual) {
  const fs::path file = kGoldenDir / name;
  if (updating()) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(file)) << file << " is missing: record it with GPUTOPO_UPDATE_GOLDEN=1";
  const std::string recorded = read_file(file);
  if (actual == recorded) return;
  std::istringstream a(actual);
  std::istringstream r(recorded);
  std::string line_a;
  std::string line_r;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, line_a));
    const bool more_r = static_cast<bool>(std::getline(r, line_r));
    if (line_a != line_r || more_a != more_r) {
      ADD_FAILURE() << "the report differs from " << file << " at line " << line
                    << "\n  recorded: " << (more_r ? line_r : "<end>")
                    << "\n  now:      " << (more_a ? line_a : "<end>");
      return;
    }
  }
}

// The probes' goldens of one report, data/golden/<stem>/<probe>.json: each compared, and none
// left over from a probe that no longer reports anything (removed when recording).
void compare_probe_goldens(const std::string& stem, const golden::ProbeSplit& split) {
  const fs::path dir = kGoldenDir / stem;
  std::vector<std::string> stale;
  if (fs::is_directory(dir))
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().stem().string();
      if (split.probes.count(name) == 0) stale.push_back(entry.path().filename().string());
    }
  for (const auto& file : stale) {
    if (updating())
      fs::remove(dir / file);
    else
      ADD_FAILURE() << (dir / file) << ": no probe of this run reports what it records; record "
                    << "the goldens again with GPUTOPO_UPDATE_GOLDEN=1";
  }
  for (const auto& [probe, findings] : split.probes)
    compare_or_update(stem + "/" + probe + ".json", json_text(findings));
}

// The cut loses nothing: its parts put together are the report, but for the order of keys and the
// probes' phases.
void expect_whole_again(model::Json report, const golden::ProbeSplit& split) {
  model::Json whole = split.rest;
  for (const auto& [probe, part] : split.probes) golden::put_back(whole, part);
  whole["run"].erase("phases");
  report["run"].erase("phases");
  EXPECT_EQ(nlohmann::json::parse(whole.dump()), nlohmann::json::parse(report.dump()));
}

// `text` with every `path` (a scratch directory named in warnings) replaced by "<scratch>".
std::string without(std::string text, const std::string& path) {
  if (path.empty()) return text;
  for (auto at = text.find(path); at != std::string::npos; at = text.find(path, at))
    text.replace(at, path.size(), "<scratch>");
  return text;
}

fs::path scratch(const std::string& stem) {
  return fs::path(::testing::TempDir()) /
         ("gputopo-golden-" + std::to_string(getpid()) + "-" + stem);
}

// The first screen (issue 34): a report fits 66 lines of 100 columns (UTF-8 counted by
// characters).
void expect_one_screen(const std::string& stem, const std::string& text) {
  std::istringstream in(text);
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    const auto columns = std::count_if(line.begin(), line.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    });
    EXPECT_LE(columns, 100) << stem << " line " << lines + 1 << ": " << line;
  }
  EXPECT_LE(lines, 66) << stem;
}

// Runs `o` (without -o) and checks its text report (stdout) and its JSON report (-o FILE)
// against the recorded ones named `stem`.
void check_reports(Options o, const std::string& stem) {
  const Command command = o.command;
  const fs::path json_file = scratch(stem + ".json");
  o.quiet = true;
  o.output = json_file.string();
  std::ostringstream out;
  std::ostringstream err;
  std::atomic<bool> interrupted{false};
  const int code =
      command == Command::Info ? run_info(o, out, err) : run_discover(o, out, err, interrupted);
  EXPECT_EQ(code, 0) << err.str();
  const std::string where = o.replay_dir.value_or("");
  expect_one_screen(stem, out.str());
  compare_or_update(stem + ".txt", masked_text(without(out.str(), where)));
  model::Json report = masked_json(without(read_file(json_file), where));
  fs::remove(json_file);
  if (command == Command::Info) return compare_or_update(stem + ".json", json_text(report));
  std::ostringstream notices;
  const auto opened = open_device(o, false, notices);
  const auto split = golden::split_by_probe(report, opened.device->info());
  expect_whole_again(report, split);
  compare_or_update(stem + ".json", json_text(split.rest));
  compare_probe_goldens(stem, split);
}

Options on_preset(Command command, const std::string& preset) {
  Options o;
  o.command = command;
  o.sim = preset;
  o.argv = {"gputopo", "--sim", preset};
  return o;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, InfoReportsAreUnchanged) {
  check_reports(on_preset(Command::Info, GetParam()), GetParam() + ".info");
}

TEST_P(Golden, DiscoveryReportsAreUnchanged) {
  check_reports(on_preset(Command::Discover, GetParam()), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Presets, Golden, ::testing::ValuesIn(device::sim::preset_names()),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// The discovery of a recording made on a real GPU (data/runs/GPU-discovery-raw.tgz), replayed.
TEST(GoldenReplay, ReplayedH100RecordingReportsAreUnchanged) {
  const fs::path dir = scratch("h100-recording");
  fs::create_directories(dir);
  const std::string untar = "tar -xzf '" + std::string(GPUTOPO_TEST_DATA) +
                            "/runs/h100-discovery-raw.tgz' -C '" + dir.string() + "'";
  ASSERT_EQ(std::system(untar.c_str()), 0) << untar;
  Options o;
  o.command = Command::Analyze;
  o.replay_dir = (dir / "raw").string();
  o.argv = {"gputopo", "analyze", "raw"};
  check_reports(o, "h100-recording");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputopo::cli
