#pragma once

#include "discovery/result.hpp"
#include "model/device_info.hpp"
#include "model/report.hpp"

// The one place a report is put together, for the CLI (`info`, `discover` and its partial
// writes, `-d all`) and the library alike.
namespace gputopo::assembly {

class Assembly {
 public:
  // No device: a report without the driver's facts (a run ended before its device opened, a
  // GPU of the host that could not be opened).
  explicit Assembly(bool simulated = false);
  // The driver's facts make the base (model::make_info_report); `simulated` marks the report as
  // the simulator's whatever the facts say.
  Assembly(const model::DeviceInfo& facts, bool simulated);

  // The report: the base, a discovery's findings so far merged in (null: none, for `info` or a
  // run that has measured nothing yet), the tool section, and `run` with the findings'
  // disturbed phases and guard cost added.
  model::Report report(const discovery::Result* findings, model::Run run) const;

 private:
  model::Report base_;
};

}  // namespace gputopo::assembly
