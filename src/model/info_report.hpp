#pragma once

#include "model/device_info.hpp"
#include "model/report.hpp"

namespace gputopo::model {

// The report of what the driver knows: `device` and `compute` as the backend listed them, and the
// API's sizes under `memory` (l2.apiSize, shared.apiSize, dram.size, ...; keys a discovery never
// replaces, so the API's word stays next to a measured `size`). `tool` and `run` are left to the
// caller.
Report make_info_report(const DeviceInfo& info);

}  // namespace gputopo::model
