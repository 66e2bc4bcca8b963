#include <sstream>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/mpi_plugin_loader.hpp"
#include "device/cuda/cuda_backend.hpp"
#include "files/atomic_file.hpp"
#include "fleet/comparison_output.hpp"
#include "model/json_input.hpp"
#include "model/printable.hpp"
#include "report/json_writer.hpp"
#include "report/run_info.hpp"

// --fleet: under mpirun, every rank runs the main job on its GPU and rank 0 compares them all
// (docs/fleet.md).
namespace gputopo::cli {
namespace {

// -d N or a simulated GPU as given; else the node's GPUs dealt out by the rank on the node.
int fleet_device(const Options& o, int local_rank) {
  if (o.device_given || o.sim) return o.device;
  try {
    const auto n = device::cuda::list_devices().size();
    if (n > 0) return local_rank % static_cast<int>(n);
  } catch (const device::Error&) {
  }
  return 0;
}

struct RankRun {
  int code = kExitOk;
  std::string report;  // the JSON report, or {"fleetError": why}
};

RankRun run_rank(Options mine, std::ostream& err, const std::atomic<bool>& interrupted) {
  std::ostringstream discarded;
  model::Report done;
  try {
    const int code =
        run_discover_on(open_device(mine, true, err), mine, discarded, err, interrupted, &done);
    if (done.device.empty())
      return {code, model::Json{{"fleetError",
                                 "the main job ended with exit code " + std::to_string(code)}}
                        .dump()};
    return {code, report::to_json(done).dump()};
  } catch (const device::Error& e) {
    err << "gputopo: " << e.what() << "\n";
    return {exit_code_for(e.kind()), model::Json{{"fleetError", e.what()}}.dump()};
  } catch (const UsageError& e) {
    err << "gputopo: " << e.what() << "\n";
    return {kExitUsage, model::Json{{"fleetError", e.what()}}.dump()};
  }
}

// Rank 0: every rank's report as members of the comparison, named rR:HOST:gpuN; ranks whose job
// failed are named on `err` and left out.
std::vector<fleet::Member> fleet_members(const std::vector<std::string>& reports,
                                         std::ostream& err) {
  std::vector<fleet::Member> members;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    const auto json = model::parse_json_input(reports[r]);
    if (json.contains("fleetError")) {
      err << "gputopo: rank " << r
          << " left out: " << model::printable(json["fleetError"].get<std::string>()) << "\n";
      continue;
    }
    const auto host = json.value("/run/host"_json_pointer, std::string("?"));
    const auto index = json.value("/run/device"_json_pointer, model::Json(0));
    const std::string name = "r" + std::to_string(r) + ":" + host + ":gpu" + index.dump();
    for (auto& m : fleet::members_of(json, name)) members.push_back(std::move(m));
  }
  return members;
}

}  // namespace

int run_fleet(const Options& o, std::ostream& out, std::ostream& err,
              const std::atomic<bool>& interrupted) {
  std::string why;
  auto mpi = MpiPlugin::load(why);
  if (!mpi) {
    err << "gputopo: --fleet needs gputopo's MPI plugin: " << model::printable(why) << "\n";
    return kExitNoGpu;
  }
  const MpiPlugin::World world = mpi->init();
  Options mine = o;
  mine.device = fleet_device(o, world.local_rank);
  mine.output.reset();
  mine.quiet = o.quiet || world.rank != 0;
  const RankRun run = run_rank(mine, err, interrupted);
  const auto reports = mpi->gather(run.report);
  int code = run.code;
  if (world.rank == 0) {
    const auto members = fleet_members(reports, err);
    if (members.size() < 2) {
      err << "gputopo: --fleet compares two GPUs or more; " << members.size() << " of the "
          << world.size << " ranks reported one (mpirun -np N gputopo --fleet)\n";
      code = kExitUsage;
    } else {
      const auto comparison = fleet::compare(members, {.tolerance = o.tolerance});
      if (o.output)
        files::write_file_atomically(*o.output, fleet::comparison_json(comparison).dump(2) + "\n");
      const int verdict = print_comparison(comparison, o, out);
      if (code == kExitOk || code == kExitDisturbed) code = verdict == kExitOk ? code : verdict;
    }
  }
  mpi->finalize();
  return code;
}

}  // namespace gputopo::cli
