#include "cli/commands.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

#include "cli/device_source.hpp"
#include "cli/exit_codes.hpp"
#include "cli/host_source.hpp"
#include "cli/progress_printer.hpp"
#include "cli/session.hpp"
#include "cli/wait_idle.hpp"
#include "device/cuda/cuda_backend.hpp"
#include "device/startup_trace.hpp"
#include "discovery/discover.hpp"
#include "model/printable.hpp"
#include "model/seconds_since.hpp"
#include "numa/locality.hpp"
#include "report/format.hpp"
#include "report/json_writer.hpp"
#include "report/run_info.hpp"

namespace gputopo::cli {
namespace {
using Clock = std::chrono::steady_clock;

bool g_device_abandoned = false;

}  // namespace

bool device_abandoned() { return g_device_abandoned; }

namespace {

// Each GPU's locality as the host section writes it ("numaNodes", "cpus" or "notEstablished").
model::Json locality_json(const numa::Locality& l) {
  return l.established ? model::Json{{"numaNodes", l.numa_nodes}, {"cpus", l.cpus}}
                       : model::Json{{"notEstablished", l.reason}};
}

std::string locality_text(const model::Json& l) {
  if (l.contains("notEstablished"))
    return ", host locality not established: " + l["notEstablished"].get<std::string>();
  return ", NUMA node " + l["numaNodes"].get<std::string>() +
         (l.contains("cpus") ? ", CPUs " + l["cpus"].get<std::string>() : std::string());
}

}  // namespace

int run_list(const Options& o, std::ostream& out, std::ostream& err) {
  std::vector<device::cuda::ListedDevice> devices;
  std::vector<model::Json> where;  // where each GPU sits in the host
  const bool simulated = o.sim.has_value();
  if (simulated) {
    OpenedHost h = open_host(o, err);
    for (std::size_t i = 0; i < h.gpus.size(); ++i) {
      const device::DeviceInfo& info = h.gpus[i]->info();
      devices.push_back({static_cast<int>(i), info.name(), info.compute_capability().major,
                         info.compute_capability().minor, info.global_memory_bytes(), ""});
      where.push_back(h.locality[i]);
    }
  } else {
    devices = device::cuda::list_devices();
    for (const auto& d : devices) where.push_back(locality_json(numa::locality_of(d.pci_bus_id)));
  }
  if (o.json) {
    model::Json j;
    j["schema"] = report::kSchemaVersion;
    j["tool"] = model::to_json(report::tool_info());
    j["devices"] = model::Json::array();
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const auto& d = devices[i];
      j["devices"].push_back({{"index", d.index},
                              {"name", d.name},
                              {"computeCapability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
                              {"memorySize", d.memory_bytes},
                              {"pciBusId", d.pci_bus_id},
                              {"simulated", simulated},
                              {"locality", where[i]}});
    }
    out << report::to_json_text(j);
    return 0;
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    out << model::printable(fmt::format(
               "GPU {}: {}, compute capability {}.{}, {}{}{}{}", d.index, d.name, d.cc_major,
               d.cc_minor, report::format_bytes(static_cast<double>(d.memory_bytes)),
               d.pci_bus_id.empty() ? "" : ", PCI " + d.pci_bus_id,
               simulated ? " (SIMULATED: " + *o.sim + ")" : "", locality_text(where[i])))
        << "\n";
  }
  return 0;
}

int run_info(const Options& o, std::ostream& out, std::ostream& err) {
  Session session(o, out, err);
  const auto start = Clock::now();
  OpenedDevice opened = open_device(o, false, err);
  session.set_device(opened.device->info(), opened.device->info().index, opened.sim);
  session.add_phase("info", model::seconds_since(start), "ok");
  return session.finish(RunStatus::Complete);
}

int run_discover(const Options& o, std::ostream& out, std::ostream& err,
                 const std::atomic<bool>& interrupted) {
  return run_discover_on(open_device(o, true, err), o, out, err, interrupted);
}

int run_discover_on(OpenedDevice opened, const Options& o, std::ostream& out, std::ostream& err,
                    const std::atomic<bool>& interrupted, model::Report* final_report) {
  Session session(o, out, err);
  const auto start = Clock::now();
  session.set_device(opened.device->info(), opened.device->info().index, opened.sim);
  session.add_phase("info", model::seconds_since(start), "ok");
  session.write_partial();
  if (o.wait_idle_s) wait_idle(*opened.device, *o.wait_idle_s, err, o.quiet, interrupted);

  ProgressPrinter progress(
      err, isatty(STDERR_FILENO) != 0, o.quiet,
      [&](std::string_view phase, double seconds, std::string_view status,
          const discovery::Result* partial) {
        session.add_phase(std::string(phase), seconds, std::string(status));
        if (!partial) return;
        session.set_findings(*partial);
        session.write_partial();
      },
      [&](const discovery::Result& so_far) { session.set_findings(so_far); });
  const auto discovery_options = cli::discovery_options(o, !opened.sim.empty() || o.replay_dir);
  discovery::Result result;
  device::trace_startup("discovery starts");
  try {
    result = discovery::discover(*opened.device, discovery_options, progress, &interrupted);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  } catch (const device::Error& e) {
    if (exit_code_for(e.kind()) != kExitMeasurement) throw;
    // A measurement error the discovery did not absorb: keep everything measured before it.
    session.add_warning(std::string("the run stopped: ") + e.what());
    err << "gputopo: " << e.what() << "\n";
    if (e.kind() == device::Error::Kind::Lost && opened.sim.empty() && !o.replay_dir) {
      // A kernel may still run on it: destroying the device would wait for it for ever.
      static_cast<void>(opened.device.release());
      g_device_abandoned = true;
    }
    return session.finish(RunStatus::Failed);
  }
  RunStatus status = RunStatus::Complete;
  if (opened.cut_short) {
    // The run that made the recording stopped early; its replay ends where it did.
    status = RunStatus::Interrupted;
    result.warnings.push_back("recording cut short: " + *o.replay_dir +
                              " ends where the run that made it stopped");
  } else if (result.failed)
    status = RunStatus::Failed;
  else if (interrupted.load())
    status = RunStatus::Interrupted;
  else if (!result.disturbed.empty())
    status = RunStatus::Disturbed;
  else if (!result.completed || !result.skipped.empty())
    status = RunStatus::Incomplete;
  if (status == RunStatus::Complete && opened.recorder) opened.recorder->finish();
  session.set_findings(std::move(result));
  if (final_report) *final_report = session.report(status);
  device::trace_startup("discovery ended");
  const int code = session.finish(status);
  device::trace_startup("report written");
  return code;
}

}  // namespace gputopo::cli
