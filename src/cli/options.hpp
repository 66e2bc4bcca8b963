#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "discovery/discovery_options.hpp"

// Flags in, options out, nothing else.
namespace gputopo::cli {

enum class Command {
  Discover,  // the main job (no command given)
  Info,      // what the driver knows, instantly
  List,      // one line per GPU
  Analyze,   // the main job, answered from a --raw recording instead of a device
  Tree,      // the main job, drawn on stdout as a tree (report/tree.hpp)
  Compare,   // which GPUs of several reports differ (fleet/compare.hpp)
  Check,     // the main job, then this GPU against a reference of its model
  Report,    // the main job (or its recording) as an HTML page with plots
};

struct Options {
  Command command = Command::Discover;
  int device = 0;
  bool device_given = false;       // -d N was given (--fleet deals GPUs out by rank otherwise)
  bool fleet = false;              // --fleet: under mpirun, rank 0 compares every rank's GPU
  bool all_devices = false;        // -d all: every GPU of the host, and the host section
  std::optional<std::string> sim;  // preset name or configuration file
  std::uint64_t seed = 1;
  bool json = false;
  // --format: the writer of stdout and -o (report/writers.cpp); nullopt: text on stdout (JSON with
  // --json), JSON in -o FILE.
  std::optional<std::string> format;
  std::optional<std::string> stdout_format;  // the writer of stdout alone (`tree`: tree, tree-full)
  std::optional<std::string> output;         // -o FILE: the JSON report, written atomically
  std::optional<std::string> raw_dir;        // --raw DIR: every request and its samples
  std::optional<std::string> replay_dir;     // analyze DIR: the recording to answer from
  bool quiet = false;
  bool verbose = false;  // -v: every attribute in the text report (text-full), not the summary
  std::vector<std::string> only;             // --only: elements or probes to discover
  std::optional<int> carveout = 0;           // --carveout: percent shared; nullopt: driver default
  std::optional<double> time_budget_s;       // --time-budget: seconds for the whole discovery
  std::optional<double> busy_budget_s = 20;  // --busy-budget: seconds measured on a busy GPU
  std::optional<double> wait_idle_s;         // --wait-idle: seconds to wait for a free GPU
  bool full_depth = false;                   // --depth full
  std::vector<std::string> compare_files;    // compare FILES
  double tolerance = 0.01;                   // compare and check --tolerance, as a fraction
  std::optional<std::string> reference;      // check --reference FILE
  std::vector<std::string> argv;             // as given, for the report's run section
};

// The discovery's options from the command line's; `no_backoff` for simulated and replayed
// devices, whose load is counted in calls, not seconds.
discovery::Options discovery_options(const Options& options, bool no_backoff);

// The options, or the exit code to leave with at once: 0 after --help or --version (printed to
// `out`), 2 after a usage error (one line on `err`).
struct ParseResult {
  std::optional<Options> options;
  int exit_code = 0;
};

ParseResult parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err);

std::string_view to_string(Command c);

}  // namespace gputopo::cli
