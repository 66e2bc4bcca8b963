#pragma once

#include <span>
#include <string>
#include <string_view>

#include "model/attribute.hpp"
#include "model/device_info.hpp"

// The one place that turns a backend's facts (DeviceInfo) into the report's `device` and `compute`
// sections: their keys, units and order, and the values derived from the facts (the architecture
// and cores per SM of NVIDIA GPUs from the compute-capability table, `cores`, `cusPerXcd`).
namespace gputopo::model {

enum class Section { General, Compute };

struct DeviceKey {
  std::string_view name;  // the report key, e.g. "smCount"
  std::string_view unit;
  Section section;
  std::string_view description;
};

// Every key the two sections can hold, in report order.
std::span<const DeviceKey> device_keys();

struct DeviceSections {
  AttributeList general;
  AttributeList compute;
};

// A fact the backend left empty is left out; one it asked for and did not get keeps its key with
// the reason.
DeviceSections device_sections(const DeviceInfo& info);

// The inverse, for recordings, which store the sections: fills the facts the sections hold.
// Returns what is wrong with the first value of the wrong type, or "" when all fit.
std::string read_device_sections(const AttributeList& general, const AttributeList& compute,
                                 DeviceInfo& info);

}  // namespace gputopo::model
