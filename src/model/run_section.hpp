#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/attribute.hpp"

namespace gputopo::model {

// One phase of a run: the driver query or a probe, its wall time and how it ended.
struct Phase {
  std::string name;
  double seconds = 0;
  std::string status;  // "ok", "failed: ...", "skipped: ...", "interrupted"
};

// Consecutive phases that other work on the GPU disturbed, re-runs included; their findings were
// demoted.
struct Disturbance {
  std::vector<std::string> phases;
  std::string why;
  int reruns = 0;
};

// What the detection of other work on the GPU cost: its time and the spans of phases it judged.
struct GuardCost {
  double seconds = 0;
  int checkpoints = 0;
};

// The simulated GPU a run used.
struct Simulation {
  std::string preset;  // a preset's name or a configuration file
  std::uint64_t seed = 0;
};

// The `run` section (docs/schema.md): what ran, where, when and how it ended. An empty string or
// an absent optional is not written.
struct Run {
  std::string command;  // "discover", "info", "library", ...
  std::optional<std::vector<std::string>> command_line;
  std::string timestamp;  // UTC, "2026-11-21T05:51:18Z"
  std::string host;
  std::optional<int> device;  // the GPU's index
  std::optional<Simulation> sim;
  std::optional<double> duration_seconds;
  std::string status;  // "complete", "incomplete", "interrupted", "failed", "disturbed"
  std::optional<std::vector<Phase>> phases;
  std::optional<std::vector<Disturbance>> disturbed;  // set with a discovery's findings
  std::optional<GuardCost> guard;                     // set with a discovery's findings
  bool replayed = false;                              // the device was a --raw recording
};

// The section as the JSON report writes it, `simulated` last.
Json to_json(const Run& run, bool simulated);

// The `tool` section: the program that wrote the report. An empty string is not written.
struct Tool {
  std::string name;          // "gputopo"
  std::string version;       // "0.1.0"
  std::string git_describe;  // `git describe` at configure time, or "unknown"
};

Json to_json(const Tool& tool);

}  // namespace gputopo::model
