#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "model/report.hpp"

// The one-screen text report: a header, the memory hierarchy nearest level first, a compact compute
// table, the topology in a line and one footnote for what was not measured (docs/formats.md). At
// most 100 columns; `-v` (write_text) prints every attribute instead.
namespace gputopo::report {

void write_summary(std::ostream& out, const model::Report& report);

// The parts, each a list of lines (summary_*.cpp).
std::vector<std::string> summary_header(const model::Report& r);
std::vector<std::string> memory_table(const model::Report& r);
std::vector<std::string> compute_table(const model::Report& r);
std::string topology_line(const model::Report& r);
std::vector<std::string> not_measured_note(const model::Report& r);

// The value of `a` in a table cell: its number in its unit, "at least 64 KiB" for a lower bound,
// "?" where not established, "" where there is no attribute.
std::string cell(const model::Attribute* a);

}  // namespace gputopo::report
