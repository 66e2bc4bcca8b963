#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace gputopo::fleet {

// The reference reports `gputopo check` compares a GPU of a known model against, embedded at build
// time from src/fleet/references/ (made from docs/results by scripts/make-reference.py): (name,
// JSON text).
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_references();

}  // namespace gputopo::fleet
