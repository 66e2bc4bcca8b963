#pragma once

#include <ostream>

#include "model/report.hpp"

namespace gputopo::report {

// The human-readable summary: grouped, aligned, in natural units, with a loud banner when the
// device is simulated. Values from the driver API carry no mark; others say where they came from
// ([table], [derived], [measured 0.98]).
void write_text(std::ostream& out, const model::Report& report);

// The banner of a simulated device, the title (tool, GPU) and the run line.
void write_text_heading(std::ostream& out, const model::Report& report);

}  // namespace gputopo::report
