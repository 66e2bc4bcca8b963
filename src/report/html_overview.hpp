#pragma once

#include <string>

#include "model/report.hpp"

// The overview that opens the HTML page (html_overview.cpp): the GPU drawn as lstopo draws a host,
// and the latency staircase's points.
namespace gputopo::report {

// An SVG drawing of the GPU: DRAM, the L2 and its segments, the GPCs with their TPCs and SMs, and
// what each SM holds (the levels of one per SM). Unplaced SMs are drawn in a box of their own.
std::string gpu_svg(const model::Report& r);

// The staircase: each memory level, nearest first, as {label, bytes (its size), cycles (its
// latency)}; levels without both are left out.
model::Json staircase(const model::Report& r);

// The per-SM x per-slice latency map of the topology's slices, as {sms, slices (ids), cycles (a
// row per SM)}; null where no slice holds a latency from every SM of Topology::slice_sms.
model::Json slice_map(const model::Report& r);

}  // namespace gputopo::report
