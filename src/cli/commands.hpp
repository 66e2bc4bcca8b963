#pragma once

#include <atomic>
#include <ostream>

#include "cli/device_source.hpp"
#include "cli/options.hpp"
#include "fleet/compare.hpp"
#include "model/report.hpp"

// The commands. Each returns the exit code; device::Error and UsageError propagate to main.
namespace gputopo::cli {

int run_list(const Options& options, std::ostream& out, std::ostream& err);
int run_info(const Options& options, std::ostream& out, std::ostream& err);
// compare: reads the reports, prints what differs; kExitDiffer when anything does.
int run_compare(const Options& options, std::ostream& out, std::ostream& err);
// check: the main job, then the comparison with the reference; kExitDiffer when the GPU differs.
int run_check(const Options& options, std::ostream& out, std::ostream& err,
              const std::atomic<bool>& interrupted);
// --fleet under mpirun: each rank's main job, rank 0 compares them (kExitDiffer when some differ).
int run_fleet(const Options& options, std::ostream& out, std::ostream& err,
              const std::atomic<bool>& interrupted);
// The comparison on stdout, text or JSON (--json); kExitDiffer when anything differs.
int print_comparison(const fleet::Comparison& comparison, const Options& options,
                     std::ostream& out);
// The main job: discovery, falling back to the simulated GPU where the host has none.
int run_discover(const Options& options, std::ostream& out, std::ostream& err,
                 const std::atomic<bool>& interrupted);
// The main job on a device already opened; the final report, as written, into `final_report` when
// the run got to its end.
int run_discover_on(OpenedDevice opened, const Options& options, std::ostream& out,
                    std::ostream& err, const std::atomic<bool>& interrupted,
                    model::Report* final_report = nullptr);
// True after a run ended because its GPU was lost: the device was left undestroyed (a kernel
// may still run on it), so the process must end without running destructors (std::_Exit).
bool device_abandoned();

}  // namespace gputopo::cli
