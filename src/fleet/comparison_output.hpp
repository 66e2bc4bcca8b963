#pragma once

#include <ostream>

#include "fleet/compare.hpp"

namespace gputopo::fleet {

// The comparison as JSON (docs/fleet.md) and as text: a line a difference, then the outliers.
model::Json comparison_json(const Comparison& c);
void write_comparison_text(std::ostream& out, const Comparison& c);

}  // namespace gputopo::fleet
