#include "cli/host_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <sstream>
#include <system_error>
#include <thread>
#include <tuple>

#include "assembly/assemble.hpp"
#include "cli/device_source.hpp"
#include "cli/exit_codes.hpp"
#include "cli/host_source.hpp"
#include "cli/wait_idle.hpp"
#include "discovery/discover.hpp"
#include "files/atomic_file.hpp"
#include "model/printable.hpp"
#include "model/seconds_since.hpp"
#include "report/host_text.hpp"
#include "report/json_writer.hpp"
#include "report/run_info.hpp"
#include "report/writers.hpp"

namespace gputopo::cli {
namespace {

using model::Json;

struct GpuRun {
  model::Report report;
  std::string status = "complete";  // complete, incomplete, interrupted, failed, disturbed
  std::string error;
};

// The run section of GPU `index`'s report in the host document, its status left to the run.
model::Run gpu_run(std::size_t index, const OpenedHost& h, std::uint64_t seed) {
  model::Run run;
  run.device = static_cast<int>(index);
  if (!h.sim.empty()) run.sim = model::Simulation{h.sim, seed};
  return run;
}

// Each phase's name, seconds and status, for the GPU's run section (as a single GPU's run has).
class PhaseLog final : public discovery::Progress {
 public:
  void begin(std::string_view, std::size_t, std::size_t) override {}
  void advance(std::size_t, std::size_t) override {}
  void end(std::string_view phase, double seconds, std::string_view status,
           const discovery::Result*) override {
    phases.push_back({std::string(phase), seconds, std::string(status)});
  }
  std::vector<model::Phase> phases;
};

GpuRun discover_one(device::Device& gpu, const discovery::Options& options, model::Run run_section,
                    const std::atomic<bool>& interrupted) {
  GpuRun run;
  const assembly::Assembly assembly(gpu.info(), run_section.sim.has_value());
  PhaseLog progress;
  const auto started = std::chrono::steady_clock::now();
  const auto timed = [&] {
    run_section.duration_seconds = model::seconds_since(started);
    run_section.phases = progress.phases;
  };
  discovery::Result r;
  try {
    r = discovery::discover(gpu, options, progress, &interrupted);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  } catch (const device::Error& e) {
    run.status = run_section.status = "failed";
    run.error = e.what();
    timed();
    run.report = assembly.report(nullptr, std::move(run_section));
    run.report.warnings.push_back(std::string("the run stopped: ") + e.what());
    return run;
  }
  run.status = r.failed                             ? "failed"
               : interrupted.load()                 ? "interrupted"
               : !r.disturbed.empty()               ? "disturbed"
               : !r.completed || !r.skipped.empty() ? "incomplete"
                                                    : "complete";
  if (r.failed) run.error = "a measurement failed (see the GPU's warnings)";
  run_section.status = run.status;
  timed();
  run.report = assembly.report(&r, std::move(run_section));
  return run;
}

// GPUs with the same name, compute capability, SM count and memory, by first index.
std::vector<std::vector<std::size_t>> identical_groups(const OpenedHost& h) {
  std::map<std::tuple<std::string, int, int, int, std::uint64_t>, std::vector<std::size_t>> by;
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < h.gpus.size(); ++i) {
    if (!h.gpus[i]) continue;
    const auto& d = h.gpus[i]->info();
    by[{d.name(), d.compute_capability().major, d.compute_capability().minor, d.sm_count(),
        d.global_memory_bytes()}]
        .push_back(i);
  }
  for (auto& [key, members] : by) groups.push_back(members);
  std::sort(groups.begin(), groups.end());
  return groups;
}

// Each group of identical GPUs in parallel, one thread per GPU; the groups one after another.
std::vector<GpuRun> discover_all(OpenedHost& h, const Options& o,
                                 const std::vector<std::vector<std::size_t>>& groups,
                                 const std::atomic<bool>& interrupted) {
  const discovery::Options options = discovery_options(o, !h.sim.empty());
  std::vector<GpuRun> runs(h.gpus.size());
  std::vector<std::exception_ptr> errors(h.gpus.size());
  for (const auto& group : groups) {
    std::vector<std::thread> threads;
    const auto join_all = [&] {
      for (auto& t : threads) t.join();
    };
    try {
      for (std::size_t i : group)
        threads.emplace_back([&, i] {
          try {
            runs[i] = discover_one(*h.gpus[i], options, gpu_run(i, h, o.seed), interrupted);
          } catch (...) {
            errors[i] = std::current_exception();
          }
        });
    } catch (const std::system_error&) {
      // No thread for a GPU (a process limit): the ones started end, then the error is the run's.
      join_all();
      throw;
    }
    join_all();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (std::size_t i = 0; i < h.gpus.size(); ++i)
    if (!h.gpus[i]) {
      runs[i].status = "failed";
      runs[i].error = h.why[i];
      model::Run run = gpu_run(i, h, o.seed);
      run.status = runs[i].status;
      runs[i].report = assembly::Assembly(!h.sim.empty()).report(nullptr, std::move(run));
      runs[i].report.warnings.push_back("GPU " + std::to_string(i) +
                                        " could not be opened: " + h.why[i]);
    }
  return runs;
}

// The links are measured only after every discovery ended, and not after an interrupt.
Json host_section(OpenedHost& h, const std::vector<GpuRun>& runs,
                  const std::vector<std::vector<std::size_t>>& groups, bool interrupted) {
  std::vector<host::LinkedGpu> linked;
  Json gpus = Json::array();
  for (std::size_t i = 0; i < h.gpus.size(); ++i) {
    const bool failed = runs[i].status == "failed";
    linked.push_back({failed || interrupted ? nullptr : h.gpus[i].get(),
                      interrupted ? std::string("the run was interrupted")
                                  : "GPU " + std::to_string(i) + " failed: " + runs[i].error,
                      h.numa_node[i]});
    Json g = {{"index", i},
              {"name", h.gpus[i] ? h.gpus[i]->info().name() : std::string("unknown")},
              {"status", runs[i].status},
              {"locality", h.locality[i]}};
    if (!runs[i].error.empty()) g["error"] = runs[i].error;
    gpus.push_back(std::move(g));
  }
  Json host = {{"gpuCount", h.gpus.size()}, {"gpus", gpus}, {"identical", groups}};
  host["numaNodes"] =
      h.numa.nodes.empty() ? Json{{"notEstablished", h.numa.why}} : Json(h.numa.nodes);
  const auto started = std::chrono::steady_clock::now();
  Json links = host::measure_links(linked, h.numa);
  for (auto& [key, value] : links.items()) host[key] = value;
  host["linksSeconds"] = model::seconds_since(started);
  return host;
}

std::string overall(const std::vector<GpuRun>& runs) {
  std::string status = "complete";
  for (const auto* s : {"incomplete", "disturbed", "interrupted", "failed"})
    for (const auto& r : runs)
      if (r.status == s) status = s;
  return status;
}

}  // namespace

int run_host(const Options& o, std::ostream& out, std::ostream& err,
             const std::atomic<bool>& interrupted) {
  if (o.format && *o.format != "json" && *o.format != "text" && *o.format != "text-full")
    throw UsageError("-d all writes the host document: --format " + *o.format +
                     " does not apply (json or text)");
  const auto started_wall = std::chrono::system_clock::now();
  const auto started = std::chrono::steady_clock::now();
  OpenedHost h = open_host(o, err);
  const double open_seconds = model::seconds_since(started);
  if (o.wait_idle_s)
    for (const auto& gpu : h.gpus)
      if (gpu) wait_idle(*gpu, *o.wait_idle_s, err, o.quiet, interrupted);
  const auto groups = identical_groups(h);
  std::vector<GpuRun> runs = discover_all(h, o, groups, interrupted);
  Json doc;
  doc["schema"] = report::kSchemaVersion;
  doc["tool"] = model::to_json(report::tool_info());
  doc["host"] = host_section(h, runs, groups, interrupted.load());
  const std::string status = overall(runs);
  Json run = {{"command", to_string(o.command)},
              {"commandLine", o.argv},
              {"timestamp", report::utc_timestamp(started_wall)},
              {"host", report::host_name()},
              {"device", "all"},
              {"status", status}};
  if (!h.sim.empty()) run["sim"] = {{"preset", h.sim}, {"seed", o.seed}};
  run["durationSeconds"] = model::seconds_since(started);
  run["openSeconds"] = open_seconds;
  doc["run"] = run;
  doc["gpus"] = Json::array();
  for (const auto& r : runs) doc["gpus"].push_back(report::to_json(r.report));
  int code = status == "failed" || status == "interrupted" ? kExitMeasurement
             : status == "disturbed"                       ? kExitDisturbed
                                                           : kExitOk;
  bool every_gpu_unopened = !h.gpus.empty();
  for (const auto& g : h.gpus) every_gpu_unopened = every_gpu_unopened && !g;
  if (every_gpu_unopened) code = exit_code_for(h.kinds.front());
  if (o.output) {
    try {
      files::write_file_atomically(*o.output, report::to_json_text(doc));
    } catch (const std::runtime_error& e) {
      err << "gputopo: " << e.what() << "\n";
      if (code == kExitOk) code = kExitUsage;
    }
  }
  if (o.json || (o.format && *o.format == "json")) {
    out << report::to_json_text(doc);
  } else if (o.verbose || o.format == "text-full") {
    std::ostringstream text;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      text << fmt::format("=== GPU {} ({}) ===\n", i, runs[i].status);
      report::find_writer("text-full")->write(text, runs[i].report);
      text << "\n";
    }
    report::write_host_text(text, doc["host"]);
    out << model::printable_lines(text.str());
  } else {
    std::vector<model::Report> reports;
    for (const auto& r : runs) reports.push_back(r.report);
    std::ostringstream text;
    report::write_host_summary(text, doc, reports, status);
    out << model::printable_lines(text.str());
  }
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (runs[i].status == "failed")
      err << "gputopo: GPU " << i << " failed: " << runs[i].error
          << "; the other GPUs' reports were written\n";
  if (status == "interrupted")
    err << "gputopo: the run interrupted; partial results were written"
        << (o.output ? " to " + *o.output : std::string()) << "\n";
  if (status == "complete")
    for (auto* r : h.recorders)
      if (r) r->finish();
  return code;
}

}  // namespace gputopo::cli
