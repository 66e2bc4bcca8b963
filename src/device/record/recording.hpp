#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "device/device.hpp"

namespace gputopo::device::record {

// A Device that forwards every call to `inner` and records each request with its results, or the
// error it raised, in `dir` (format: docs/raw.md). The directory is readable after every call, so
// an interrupted run leaves a usable recording. Creates `dir`; a recording already in it is
// replaced. Throws RawDirError (Kind::Measurement) when the directory cannot be written.
std::unique_ptr<Device> record_to(std::unique_ptr<Device> inner, const std::filesystem::path& dir,
                                  std::string tool_version = {});

}  // namespace gputopo::device::record
