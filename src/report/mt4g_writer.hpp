#pragma once

#include "model/report.hpp"

namespace gputopo::report {

// The report in MT4G v1.2's JSON layout for NVIDIA GPUs (general, compute, memory, meta; MT4G's
// key names and units), which sys-sage's MT4G parser and GPUscout read (docs/formats.md). Values
// gputopo did not establish are left out, as MT4G leaves out what it did not measure.
model::Json to_mt4g(const model::Report& report);

}  // namespace gputopo::report
