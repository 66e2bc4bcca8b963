#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace gputopo::device::sim {

// The JSON presets under src/device/sim/presets/, embedded at build time: (name, text), by name.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_presets();

// The host presets under src/device/sim/hosts/ (host.hpp), the same way.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_host_presets();

}  // namespace gputopo::device::sim
