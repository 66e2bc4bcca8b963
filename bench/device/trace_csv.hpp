#pragma once

#include <ostream>
#include <string>

#include "device/device.hpp"

// Raw chase traces as compact CSV (docs/cuda-backend.md, "Recorded traces"): one row per
// request, the per-load cycles space-separated in the last column.
namespace gputopo::bench {

void write_trace_header(std::ostream& out);
void write_trace_rows(std::ostream& out, const std::string& device_name,
                      const device::ChaseBatch& batch, const device::ChaseBatchResult& result);

}  // namespace gputopo::bench
