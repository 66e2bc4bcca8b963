#pragma once

#include <optional>
#include <string_view>

namespace gputopo::model {

// Facts NVIDIA publishes per compute capability (CUDA C++ Programming Guide, "Compute
// Capabilities"). Reported with source `table`. Unknown capabilities give nullopt: the report then
// says the value is not available rather than guessing.
struct ArchitectureFacts {
  int cc_major = 0;
  int cc_minor = 0;
  std::string_view name;  // "Hopper", ...
  int fp32_cores_per_sm = 0;
};

std::optional<ArchitectureFacts> architecture_facts(int cc_major, int cc_minor);

// The table cites this in every `table` attribute.
inline constexpr std::string_view kArchitectureTableMethod = "cc-table";

}  // namespace gputopo::model
