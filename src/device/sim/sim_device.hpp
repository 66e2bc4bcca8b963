#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device/device.hpp"
#include "device/sim/config.hpp"

namespace gputopo::device::sim {

// A simulated GPU from a preset name (see preset_names()) or the path of a JSON configuration
// (docs/sim.md). The same seed and the same calls give the same results, always. A bad name or
// file throws device::Error(BadRequest) with one line naming the file, the field and the reason.
std::unique_ptr<Device> open(const std::string& preset_or_file, std::uint64_t seed = 1);

// The presets built into the library, sorted.
std::vector<std::string> preset_names();

// The configuration open() would use, without opening a device.
SimConfig load_config(const std::string& preset_or_file);

// A simulated GPU from an already parsed configuration.
std::unique_ptr<Device> make_device(SimConfig config, std::uint64_t seed = 1);

}  // namespace gputopo::device::sim
