#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/attribute.hpp"

// The attributes of gputopo's reports as a fleet comparison reads them.
namespace gputopo::fleet {

// How the runs behind a reference's attribute spread (scripts/make-reference.py): numbers keep a
// robust standard deviation and their range, anything else every value a run gave.
struct Spread {
  std::size_t runs = 0;  // the runs that established it
  double sigma = 0;
  std::optional<std::pair<double, double>> range;
  std::vector<model::Json> values;
};

// One attribute of one GPU's report.
struct Value {
  std::string path;   // section.key or memory.element.key: "memory.dram.readBandwidth"
  model::Json value;  // a number, a string or a bool; null where the report has none
  std::string unit;
  std::string source;  // api, table, derived or measured
  std::optional<double> confidence;
  // [lo, hi]; an open bound (null in the report) is -inf or +inf.
  std::optional<std::pair<double, double>> interval;
  std::optional<Spread> spread;  // a reference's attributes only
  std::string reason;            // why there is no value
};

// One GPU: its name in the comparison and its attributes in report order.
struct Member {
  std::string name;
  std::vector<Value> values;
};

// The GPUs of one report document: one for a discovery's report or a reference, one a GPU for a
// host's (-d all), named `name` and `name#index`. Attributes that identify a GPU rather than
// describe it (its UUID, PCI bus, NUMA node), the clocks of the moment and values that are not one
// number, string or bool are left out. Throws std::invalid_argument with a one-line reason when
// `doc` is not a report: not an object, no `device` and `memory` objects, no `device.name`.
std::vector<Member> members_of(const model::Json& doc, const std::string& name);

}  // namespace gputopo::fleet
