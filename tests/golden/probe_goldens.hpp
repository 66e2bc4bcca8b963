#pragma once

#include <map>
#include <string>

#include "device/info.hpp"
#include "model/attribute.hpp"

// A discovery's JSON report cut in two (docs/testing.md, "Goldens"): the findings each probe
// writes, with its phase's status, apart; and the rest, the whole report without them.
namespace gputopo::cli::golden {

struct ProbeSplit {
  model::Json rest;                           // the report less every probe's findings and phase
  std::map<std::string, model::Json> probes;  // probe name -> {"status", "findings"}
};

// Each finding goes to the probe that produces it (writes it without reading it; else the first
// that writes it), in the registered probes of `info`. A probe with neither a phase nor a
// finding in the report has no entry.
ProbeSplit split_by_probe(model::Json report, const device::DeviceInfo& info);

}  // namespace gputopo::cli::golden
