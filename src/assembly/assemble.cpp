#include "assembly/assemble.hpp"

#include "model/info_report.hpp"
#include "model/plausibility.hpp"
#include "report/run_info.hpp"

namespace gputopo::assembly {
namespace {

// `report` with what a discovery found so far: its elements and compute attributes merged in,
// its topology with each level's state settled, its warnings and sweeps added, and the run's
// disturbed phases and guard cost.
void add_findings(model::Report& report, const discovery::Result& found) {
  model::merge(report.compute, found.compute);
  model::merge(report.memory, found.memory);
  report.warnings.insert(report.warnings.end(), found.warnings.begin(), found.warnings.end());
  report.sweeps = found.sweeps;
  report.topology = found.topology;
  model::refuse_implausible(report);
  model::settle_levels(report);
  report.run.disturbed = found.disturbed;
  report.run.guard = model::GuardCost{found.guard_seconds, found.checkpoints};
}

}  // namespace

Assembly::Assembly(bool simulated) { base_.simulated = simulated; }

Assembly::Assembly(const model::DeviceInfo& facts, bool simulated)
    : base_(model::make_info_report(facts)) {
  base_.simulated = base_.simulated || simulated;
}

model::Report Assembly::report(const discovery::Result* findings, model::Run run) const {
  model::Report report = base_;
  report.tool = report::tool_info();
  report.run = std::move(run);
  if (findings) add_findings(report, *findings);
  return report;
}

}  // namespace gputopo::assembly
