#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/contention_classes.hpp"
#include "discovery/context.hpp"
#include "model/attribute.hpp"

// The l2.slices probe's contention half (docs/methods.md, "Contention classes"): lines classed by
// reduction contention, the slice count from the classes, and each SM's reduction latency to
// each slice.
namespace gputopo::discovery::slice_contention {

// Classes of `lines` lines `line_bytes` apart (more, up to 4,096, while classes may have gone
// unseen), or nullopt (`why`) where the device times no reductions.
std::optional<analysis::ContentionClasses> classes(Context& ctx, int lines,
                                                   std::uint64_t line_bytes, std::string& why);

// Puts l2.sliceCount from the classes; its confidence where established, else nullopt.
std::optional<double> put_count(Context& ctx, const analysis::ContentionClasses& c,
                                std::uint64_t line_bytes, const std::string& weaker);

// Times each SM of `sms` reducing to each class's representative; puts l2.sliceLatencySpread
// with the map and the topology's slices with their nearest SMs. False, and nothing put, where
// the device times no such latency or there are more classes than a request holds.
bool put_latency_map(Context& ctx, const analysis::ContentionClasses& c, std::uint64_t line_bytes,
                     const std::vector<int>& sms, double confidence);

}  // namespace gputopo::discovery::slice_contention
