#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/attribute.hpp"
#include "model/run_section.hpp"
#include "model/sweep_record.hpp"
#include "model/topology.hpp"

namespace gputopo::model {

// One memory element of the report (`l1`, `l2`, `texture`, `readOnly`, `constantL1`,
// `constantL15`, `shared`, `dram`), its attributes in report order.
struct Element {
  std::string key;
  AttributeList attributes;
};

// The whole document. Writers (src/report/) turn it into text or JSON; they never measure.
struct Report {
  Tool tool;               // name, version, git describe (run_section.hpp)
  Run run;                 // command, timestamp, host, duration, phases (run_section.hpp)
  bool simulated = false;  // true when the device is the simulator: every writer says so
  AttributeList device;    // general: name, architecture, clocks, memory, ...
  AttributeList compute;   // SMs, cores, limits, and measured layout where discovered
  Topology topology;       // the layout as objects (model/topology.hpp); writers read it
  std::vector<Element> memory;
  std::vector<std::string> warnings;  // conditions that may distort results (clock change, ...)
  std::vector<Sweep> sweeps;          // the chase batches of the run, in order (HTML plots only)
};

// Adds the elements of `from` to `into`: attributes of an element `into` already has are merged
// into it (model::merge), new elements are appended.
void merge(std::vector<Element>& into, const std::vector<Element>& from);

// The attribute at `path`: "compute.gpcCount", or an element and its key, "l2.sliceCount".
const Attribute* find(const Report& r, std::string_view path);

// Copies each level of the topology's state from the attribute that states it.
void settle_levels(Report& r);

}  // namespace gputopo::model
