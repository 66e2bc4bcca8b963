#pragma once

#include <string>
#include <vector>

#include "model/attribute.hpp"
#include "model/report.hpp"

namespace gputopo::discovery {

// Wall time and outcome of one probe, for the JSON `run` section.
struct ProbeTiming {
  std::string probe;   // e.g. "l1.size"
  double seconds = 0;  // wall time on the host, device work included
  std::string status;  // "ok", "failed: ...", "skipped: ...", "interrupted"
};

// Consecutive phases that other work on the GPU disturbed (Context::demote_since), as the run
// section lists them.
using Disturbance = model::Disturbance;

// What a discovery found. An interrupted or failed run keeps everything measured before.
struct Result {
  std::vector<model::Element> memory;  // requested elements, in report order
  model::AttributeList compute;        // measured additions to the compute section
  model::Topology topology;            // the layout the layout probes wrote
  std::vector<ProbeTiming> timings;    // in run order
  std::vector<std::string> warnings;   // conditions that may distort results
  std::vector<model::Sweep> sweeps;  // every chase batch, by probe, in run order (Options::sweeps)
  bool completed = false;  // every planned probe ran (not interrupted, not out of time budget)
  bool failed = false;     // at least one probe's measurement failed (exit code 4)
  std::vector<Disturbance> disturbed;  // empty when no phase stayed disturbed
  std::vector<std::string> skipped;    // probes left out for lack of device memory, with why
  double seconds = 0;                  // whole discovery
  double guard_seconds = 0;  // of which the detection of other work (driver queries, controls)
  int checkpoints = 0;       // spans of phases judged by the detection
};

}  // namespace gputopo::discovery
