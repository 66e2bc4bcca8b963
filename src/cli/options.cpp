#include "cli/options.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/plan.hpp"
#include "discovery/registry.hpp"
#include "files/atomic_file.hpp"
#include "model/printable.hpp"
#include "report/run_info.hpp"
#include "report/writers.hpp"

namespace gputopo::cli {
namespace {

// `text` as a whole number of type T in [lo, hi]: digits only (no sign, no space), in range.
template <class T>
std::optional<T> whole_number(const std::string& text, T lo, T hi) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || text[0] == '-' || text[0] == '+' || ec != std::errc() ||
      end != text.data() + text.size() || value < lo || value > hi)
    return std::nullopt;
  return value;
}

// The options that only the discovery (no command, or analyze) uses.
constexpr std::string_view kDiscoveryOnly[] = {
    "--only", "--raw", "--time-budget", "--carveout", "--wait-idle", "--busy-budget", "--depth"};

// `text` as a finite decimal number, nothing before or after it.
std::optional<double> decimal(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// A positive, finite number of seconds.
std::optional<double> seconds(const std::string& text) {
  const auto v = decimal(text);
  return v && *v > 0 ? v : std::nullopt;
}

// The report formats, comma-separated.
std::string format_names() {
  std::string names;
  for (const auto& w : report::writers())
    names += (names.empty() ? "" : ", ") + std::string(w->name());
  return names;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

std::string_view to_string(Command c) {
  switch (c) {
    case Command::Discover:
      return "discover";
    case Command::Info:
      return "info";
    case Command::List:
      return "list";
    case Command::Analyze:
      return "analyze";
    case Command::Tree:
      return "tree";
    case Command::Compare:
      return "compare";
    case Command::Check:
      return "check";
    case Command::Report:
      return "report";
  }
  return "unknown";
}

namespace {

// The option values as typed, before they are checked.
struct Typed {
  bool version = false;
  std::string sim;
  std::string output;
  std::string raw;
  std::string device = "0";
  std::string seed = "1";
  std::string time_budget;
  std::string carveout = "0";
  std::string wait_idle;
  std::string busy_budget;
  std::string format;
  std::string depth = "quick";
  std::string replay;
  bool full = false;
  std::vector<std::string> files;
  std::string tolerance;
  std::string reference;
};

struct Subcommands {
  CLI::App* info;
  CLI::App* list;
  CLI::App* analyze;
  CLI::App* tree;
  CLI::App* compare;
  CLI::App* check;
  CLI::App* report;
};

// Declares the subcommands and their own options on `app`, into `t`.
Subcommands declare_subcommands(CLI::App& app, Typed& t) {
  Subcommands sub{app.add_subcommand("info", "what the driver knows about the GPU, instantly"),
                  app.add_subcommand("list", "the GPUs of this host, one line each"),
                  app.add_subcommand("analyze",
                                     "re-run the discovery offline from a --raw recording (the "
                                     "same options it ran with)"),
                  app.add_subcommand("tree",
                                     "the main job, drawn as a tree: GPU, L2, GPCs, TPCs, SMs "
                                     "with their caches (docs/topology.md)"),
                  app.add_subcommand("compare",
                                     "which GPUs of several JSON reports differ, and how; exit "
                                     "code 6 when some do (docs/fleet.md)"),
                  app.add_subcommand("check",
                                     "the main job, then this GPU against a reference report of "
                                     "its model; exit code 6 when it differs (docs/fleet.md)"),
                  app.add_subcommand("report",
                                     "the main job, or a --raw recording's, as a self-contained "
                                     "HTML page with a plot of every sweep (docs/formats.md)")};
  sub.analyze->add_option("DIR", t.replay, "the directory written by --raw")->required();
  sub.report->add_option("DIR", t.replay, "a directory written by --raw (default: run on the GPU)");
  sub.tree->add_flag("--full", t.full,
                     "every GPC, TPC and SM on a line of its own, with intervals and marks");
  sub.compare
      ->add_option("FILES", t.files,
                   "reports written with -o (each GPU of a -d all report counts as one)")
      ->required()
      ->expected(1, -1);
  sub.compare
      ->add_option("--tolerance", t.tolerance,
                   "a floor: a measured value differs only when it also lies this far (percent) "
                   "from the others' (default 1)")
      ->type_name("PERCENT");
  sub.check
      ->add_option("--reference", t.reference,
                   "the report to compare with (default: the built-in one of this GPU's model)")
      ->type_name("FILE");
  sub.check
      ->add_option("--tolerance", t.tolerance,
                   "a floor: a measured value differs only when it also lies this far (percent) "
                   "from the reference's (default 1)")
      ->type_name("PERCENT");
  for (auto* s : {sub.info, sub.list, sub.analyze, sub.tree, sub.compare, sub.check, sub.report})
    s->fallthrough();
  app.require_subcommand(0, 1);
  return sub;
}

// Declares every option and subcommand on `app`, into `o` and `t`.
Subcommands declare(CLI::App& app, Options& o, Typed& t) {
  std::string presets;
  for (const auto& name : device::sim::preset_names())
    presets += (presets.empty() ? "" : ", ") + name;
  app.add_option("-d,--device", t.device,
                 "GPU index (default 0), or all: every GPU of the host and its links")
      ->type_name("N");
  app.add_option("--sim", t.sim,
                 "run on a simulated GPU: a preset (" + presets + ") or a JSON file (docs/sim.md)")
      ->type_name("PRESET|FILE");
  app.add_option("--seed", t.seed, "seed of the simulated GPU's noise (default 1)")->type_name("N");
  app.add_flag("--json", o.json, "print the JSON report to stdout instead of the summary");
  app.add_option("--format", t.format,
                 "the format of stdout and of -o FILE: " + format_names() +
                     " (default: text on stdout, json in FILE)")
      ->type_name("NAME");
  app.add_option("-o,--output", t.output,
                 "also write the report to FILE (JSON unless --format), atomically")
      ->type_name("FILE");
  app.add_option("--raw", t.raw, "record every request and its raw samples under DIR (docs/raw.md)")
      ->type_name("DIR");
  app.add_flag("-q,--quiet", o.quiet, "no progress or notices on stderr");
  app.add_flag("-v,--verbose", o.verbose,
               "the text report with every attribute, its source, confidence, interval and "
               "whole reason (default: the one-screen summary)");
  app.add_flag("--fleet", o.fleet,
               "under mpirun: every rank runs the main job on a GPU of its node, and rank 0 prints "
               "which GPUs differ, as compare does (docs/fleet.md)");
  app.add_option(
         "--only", o.only,
         "discover only these elements or probes, comma-separated (" +
             discovery::selectable_names(discovery::registered_probes(device::DeviceInfo{})) +
             ", or a probe such as l1.size); what they depend on runs too")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("LIST");
  app.add_option("--carveout", t.carveout,
                 "shared-memory carve-out (percent) the L1-family caches are measured under, or "
                 "'default' for the driver's choice (default 0: the largest L1)")
      ->type_name("PERCENT|default");
  app.add_option("--time-budget", t.time_budget,
                 "stop the discovery after this many seconds, keeping what was measured")
      ->type_name("SECONDS");
  app.add_option("--wait-idle", t.wait_idle,
                 "before the discovery, wait up to this many seconds for other processes to stop "
                 "using the GPU")
      ->type_name("SECONDS");
  app.add_option("--busy-budget", t.busy_budget,
                 "once other work is found on the GPU, measure at most this many seconds more "
                 "while it lasts, or 'none' (default 20)")
      ->type_name("SECONDS|none");
  app.add_option("--depth", t.depth,
                 "quick (default, about 1.3 s on an H200) or full (about 3 s): also the cache "
                 "geometry, the L2's slices and the translation measurements too slow for the "
                 "default (docs/cli.md)")
      ->type_name("quick|full");
  app.add_flag("--version", t.version, "print the version and exit");
  app.footer(
      "Exit codes: 0 ok, 2 usage error, 3 no usable GPU or driver, 4 a measurement failed, the "
      "GPU was lost or the run was interrupted (partial results written), 5 other work on the "
      "GPU disturbed some phases (their findings not established), 6 compare or check: the GPUs "
      "differ. See docs/cli.md.");
  return declare_subcommands(app, t);
}

// The numbers among the options into `o`; what is wrong with the first one that is malformed.
std::optional<std::string> read_numbers(const CLI::App& app, const Typed& t, Options& o) {
  o.device_given = app.count("--device") > 0;
  if (t.device == "all")
    o.all_devices = true;
  else if (auto v = whole_number<int>(t.device, 0, std::numeric_limits<int>::max()))
    o.device = *v;
  else if (!t.device.empty() && t.device.find_first_not_of("0123456789") == std::string::npos)
    throw device::Error(device::Error::Kind::NoDevice,
                        "-d " + t.device +
                            ": GPU index out of range (beyond any host, whose "
                            "indexes end below 2147483648; gputopo list shows this host's GPUs)");
  else
    return "-d " + t.device + ": expected a GPU index, a whole number from 0, or all";
  if (auto v = whole_number<std::uint64_t>(t.seed, 0, std::numeric_limits<std::uint64_t>::max()))
    o.seed = *v;
  else
    return "--seed " + t.seed + ": expected a whole number from 0 to 18446744073709551615";
  if (app.count("--time-budget") > 0 && !(o.time_budget_s = seconds(t.time_budget)))
    return "--time-budget " + t.time_budget + ": expected a positive number of seconds";
  if (app.count("--wait-idle") > 0 && !(o.wait_idle_s = seconds(t.wait_idle)))
    return "--wait-idle " + t.wait_idle + ": expected a positive number of seconds";
  if (app.count("--busy-budget") > 0) {
    if (t.busy_budget == "none")
      o.busy_budget_s = std::nullopt;
    else if (const auto s = seconds(t.busy_budget))
      o.busy_budget_s = *s;
    else
      return "--busy-budget " + t.busy_budget + ": expected a positive number of seconds or 'none'";
  }
  if (t.depth != "quick" && t.depth != "full")
    return "--depth " + t.depth + ": expected quick or full";
  o.full_depth = t.depth == "full";
  if (app.count("--format") > 0) {
    if (report::find_writer(t.format) == nullptr)
      return "--format " + t.format + ": expected one of " + format_names();
    if (o.json && t.format != "json") return "--json and --format " + t.format + " disagree";
    o.format = t.format;
  }
  return std::nullopt;
}

// info or list into `o`; what is wrong when an option does not apply to it.
std::optional<std::string> read_info_or_list(const CLI::App& app, const Subcommands& sub,
                                             Options& o) {
  if (sub.info->parsed()) o.command = Command::Info;
  if (sub.list->parsed()) o.command = Command::List;
  if (o.command != Command::Info && o.command != Command::List) return std::nullopt;
  for (const std::string_view name : kDiscoveryOnly)
    if (app.count(std::string(name)) > 0)
      return std::string(name) + " applies to the discovery, not to " +
             std::string(to_string(o.command));
  if (o.command == Command::List && app.count("--output") > 0)
    return "-o applies to the discovery and info, not to list (use --json)";
  if (o.command == Command::List && app.count("--format") > 0)
    return "--format applies to the discovery and info, not to list (use --json)";
  return std::nullopt;
}

// compare into `o`; what is wrong when an option does not apply to it or is malformed.
std::optional<std::string> read_compare(const CLI::App& app, const Subcommands& sub, const Typed& t,
                                        Options& o) {
  if (sub.check->parsed()) {
    o.command = Command::Check;
    if (app.count("--format") > 0) return "--format does not apply to check (--json does)";
    if (sub.check->count("--reference") > 0) {
      if (t.reference.empty()) return "--reference needs a file (an empty name is not one)";
      o.reference = t.reference;
    }
  }
  if (sub.compare->parsed()) {
    o.command = Command::Compare;
    for (const std::string_view name : kDiscoveryOnly)
      if (app.count(std::string(name)) > 0)
        return std::string(name) + " applies to the discovery, not to compare";
    for (const char* name : {"--device", "--sim", "--seed", "--format"})
      if (app.count(name) > 0) return std::string(name) + " does not apply to compare";
  }
  if (o.command != Command::Compare && o.command != Command::Check) return std::nullopt;
  if ((sub.check->parsed() ? sub.check : sub.compare)->count("--tolerance") > 0) {
    const auto v = decimal(t.tolerance);
    if (!v || *v < 0 || *v > 100)
      return "--tolerance " + t.tolerance + ": expected a percentage from 0 to 100";
    o.tolerance = *v / 100;
  }
  o.compare_files = t.files;
  return std::nullopt;
}

// report into `o`: the HTML page to -o FILE (the summary on stdout) or else to stdout, from the GPU
// or from the recording DIR; what is wrong when an option does not apply.
std::optional<std::string> read_report(const CLI::App& app, const CLI::App& report, const Typed& t,
                                       Options& o) {
  if (app.count("--json") > 0 || app.count("--format") > 0)
    return "report writes HTML: --json and --format do not apply";
  o.command = Command::Report;
  o.format = "html";
  if (app.count("--output") > 0) o.stdout_format = "text";
  if (report.count("DIR") > 0) {
    if (t.replay.empty()) return "report DIR: an empty name is not a directory";
    if (app.count("--sim") > 0 || app.count("--raw") > 0)
      return "report DIR answers from a recording: --sim and --raw do not apply";
    o.replay_dir = t.replay;
  }
  return std::nullopt;
}

// tree into `o`: stdout drawn as a tree, which --json and --format would replace.
std::optional<std::string> read_tree(const CLI::App& app, const Typed& t, Options& o) {
  if (app.count("--json") > 0 || app.count("--format") > 0)
    return "tree draws stdout as a tree: --json and --format do not apply (-o FILE takes the JSON "
           "report)";
  o.command = Command::Tree;
  o.stdout_format = t.full ? "tree-full" : "tree";
  return std::nullopt;
}

// -v: the text writer of stdout and -o FILE is the full one.
void read_verbose(Options& o) {
  if (!o.verbose) return;
  if (o.format == "text") o.format = "text-full";
  if (o.stdout_format == "text" || (!o.stdout_format && !o.format && !o.json))
    o.stdout_format = "text-full";
}

// --fleet: the main job on one GPU a rank, without --raw or a report format (stdout and -o take
// the comparison).
std::optional<std::string> read_fleet(const CLI::App& app, Options& o) {
  if (!o.fleet) return std::nullopt;
  if (o.command != Command::Discover)
    return "--fleet runs the main job: it does not apply to " + std::string(to_string(o.command));
  if (o.all_devices) return "--fleet runs one GPU a rank: give -d N or leave -d out, not -d all";
  for (const char* name : {"--raw", "--format"})
    if (app.count(name) > 0) return std::string(name) + " does not apply to --fleet";
  o.tolerance = 0.05;
  return std::nullopt;
}

// --carveout into `o`; what is wrong with it when it is malformed.
std::optional<std::string> read_carveout(const Typed& t, Options& o) {
  if (t.carveout == "default") {
    o.carveout.reset();
    return std::nullopt;
  }
  char* end = nullptr;
  const long v = std::strtol(t.carveout.c_str(), &end, 10);
  if (t.carveout.empty() || *end != '\0' || v < 0 || v > 100)
    return "--carveout " + t.carveout + ": expected a percentage from 0 to 100, or 'default'";
  o.carveout = static_cast<int>(v);
  return std::nullopt;
}

// --only's names: those of either vendor's elements are accepted here; the device's own decide
// later.
std::optional<std::string> check_only(const Options& o) {
  device::DeviceInfo amd;
  amd.vendor = "AMD";
  for (const auto& name : o.only) {
    try {
      discovery::Plan(discovery::registered_probes(device::DeviceInfo{}), {name});
    } catch (const std::invalid_argument& e) {
      try {
        discovery::Plan(discovery::registered_probes(amd), {name});
      } catch (const std::invalid_argument& e_amd) {
        return std::string("--only: ") + e.what() + "; on AMD: " + e_amd.what();
      }
    }
  }
  return std::nullopt;
}

// `--name=` with nothing after the '=': CLI11 would take the next argument as the value.
std::optional<std::string> empty_attached_value(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.size() > 3 && arg.starts_with("--") && arg.back() == '=' &&
        arg.find('=') == arg.size() - 1)
      return std::string(arg) + ": an empty value (give one after the '=')";
  }
  return std::nullopt;
}

}  // namespace

discovery::Options discovery_options(const Options& o, bool no_backoff) {
  discovery::Options d;
  d.only.insert(o.only.begin(), o.only.end());
  d.carveout_percent = o.carveout;
  d.time_budget_s = o.time_budget_s;
  d.busy_budget_s = o.busy_budget_s;
  if (o.full_depth) d.depth = discovery::Depth::Full;
  if (no_backoff) d.retry_backoff_s = 0;
  d.sweeps = o.format == "html" || o.stdout_format == "html";
  return d;
}

// -o FILE into `o`; the result to return where it is empty or cannot be written.
std::optional<ParseResult> read_output(const CLI::App& app, const Typed& t, Options& o,
                                       std::ostream& err) {
  if (app.count("--output") == 0) return std::nullopt;
  if (t.output.empty()) {
    err << "gputopo: -o needs a file name (an empty name is not one) (see gputopo --help)\n";
    return ParseResult{std::nullopt, kExitUsage};
  }
  if (std::string why = files::why_not_writable(t.output); !why.empty()) {
    err << "gputopo: " << model::printable("-o " + t.output + ": " + why) << "\n";
    return ParseResult{std::nullopt, kExitUsage};
  }
  o.output = t.output;
  return std::nullopt;
}

ParseResult parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err) {
  Options o;
  o.argv.assign(argv, argv + argc);
  Typed t;
  CLI::App app{
      "gputopo: discovers a GPU's compute and memory topology with microbenchmarks.\n"
      "Without a command, runs the discovery on the chosen GPU (the simulated one where "
      "no GPU is present).",
      "gputopo"};
  const Subcommands sub = declare(app, o, t);
  if (auto why = empty_attached_value(argc, argv)) {
    err << "gputopo: " << model::printable(*why) << " (see gputopo --help)\n";
    return {std::nullopt, kExitUsage};
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return {std::nullopt, kExitOk};
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return {std::nullopt, kExitOk};
  } catch (const CLI::ParseError& e) {
    err << "gputopo: " << model::printable(one_line(e.what())) << " (see gputopo --help)\n";
    return {std::nullopt, kExitUsage};
  }
  if (t.version) {
    out << "gputopo " << report::tool_version() << " (" << report::tool_git_describe() << ")\n";
    return {std::nullopt, kExitOk};
  }
  const auto usage = [&](const std::string& message) {
    err << "gputopo: " << model::printable(message) << " (see gputopo --help)\n";
    return ParseResult{std::nullopt, kExitUsage};
  };
  if (auto why = read_info_or_list(app, sub, o)) return usage(*why);
  if (auto why = read_compare(app, sub, t, o)) return usage(*why);
  try {
    if (auto why = read_numbers(app, t, o)) return usage(*why);
  } catch (const device::Error& e) {  // an index no host has
    err << "gputopo: " << e.what() << "\n";
    return {std::nullopt, exit_code_for(e.kind())};
  }
  if (auto why = check_only(o)) return usage(*why);
  if (sub.analyze->parsed()) {
    if (app.count("--sim") > 0 || app.count("--raw") > 0) {
      err << "gputopo: analyze answers from a recording: --sim and --raw do not apply\n";
      return {std::nullopt, kExitUsage};
    }
    o.command = Command::Analyze;
    o.replay_dir = t.replay;
  }
  if (sub.report->parsed()) {
    if (auto why = read_report(app, *sub.report, t, o)) return usage(*why);
  }
  if (sub.tree->parsed()) {
    if (auto why = read_tree(app, t, o)) return usage(*why);
  }
  if (o.all_devices &&
      (o.command == Command::Analyze || o.command == Command::Tree || o.command == Command::Info ||
       o.command == Command::Check || o.command == Command::Report))
    return usage(std::string(to_string(o.command)) + " works on one GPU: give -d N, not -d all");
  if (!t.sim.empty()) o.sim = t.sim;
  if (app.count("--sim") > 0 && t.sim.empty()) return usage("--sim needs a preset name or a file");
  if (auto exit = read_output(app, t, o, err)) return std::move(*exit);
  if (auto why = read_carveout(t, o)) return usage(*why);
  if (auto why = read_fleet(app, o)) return usage(*why);
  read_verbose(o);
  if (app.count("--raw") > 0) {
    if (t.raw.empty()) return usage("--raw needs a directory");
    o.raw_dir = t.raw;
  }
  return {std::move(o), kExitOk};
}

}  // namespace gputopo::cli
