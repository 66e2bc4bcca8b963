#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/profile_groups.hpp"
#include "discovery/context.hpp"
#include "model/attribute.hpp"

// What both of the l2.slices probe's methods (contention classes, latency classes) write the same
// way: the per-SM x per-slice latency map with its spread and nearest SMs, and the line map and
// hash masks of their evidence.
namespace gputopo::discovery::slice_map {

// mean[sm][slice] (cycles) and its 95 % half-width, a row per timed SM.
struct Map {
  std::vector<std::vector<double>> mean, half;
};

// Each line's class as one base-36 digit (up to 36 classes), else the list.
model::Json class_text(const std::vector<int>& label, int count);

// The hash's masks over line-index bits, as address masks in hex.
std::vector<std::string> address_masks(const analysis::XorHash& hash, std::uint64_t line_bytes);

// The SMs whose latency to slice k is, within both half-widths, the least.
model::SmList nearest(const Map& map, const std::vector<int>& sms, std::size_t k);

// The topology's slices, one a column, each with its nearest SMs and its latency from each SM.
void add_slices(Context& ctx, const Map& map, const std::vector<int>& sms, double confidence);

// l2.sliceLatencySpread: the largest minus the least cell, its interval the two cells'
// half-widths; the map (rounded to 0.1) in the evidence under `map_key`, the least and the most
// cell by sm and `column` (what a column is: "class", "slice").
model::Attribute spread(const Map& map, const std::vector<int>& sms, std::string method,
                        double confidence, const std::string& map_key, const std::string& column);

}  // namespace gputopo::discovery::slice_map
