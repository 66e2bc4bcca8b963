#pragma once

#include <optional>
#include <string_view>

#include "model/attribute.hpp"

// What one run's repeats cannot see: a value moves between runs on one GPU (the clocks' state,
// where the buffers land in physical memory) further than within a run. Fitted from repeat runs
// recorded on real GPUs (scripts/fit-run-noise.py; docs/methods.md, "Intervals").
namespace gputopo::model {

// The relative standard deviation between runs of a value of this unit, or of the attribute at
// `path` ("memory.l2.sharedReadBandwidth") where it has a figure of its own; none for a unit
// without a fitted figure (sizes, counts: their intervals come from the search's resolution).
std::optional<double> run_to_run_sd(std::string_view unit, std::string_view path = {});

// Grows a measured or derived number's interval on each side, in quadrature, by the run-to-run
// term of its unit (or of the attribute at `path`): 1.96 x sqrt(2) x sd x |value|, as this run
// and a repeat each carry it.
void add_run_to_run_noise(Attribute& a, std::string_view path = {});

}  // namespace gputopo::model
