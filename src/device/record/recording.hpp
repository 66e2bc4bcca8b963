#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "device/device.hpp"

namespace gputopo::device::record {

// A Device that forwards every call to its inner device and records each request with its
// results, or the error it raised (format: docs/raw.md). The directory is readable after every
// call, so an interrupted run leaves a usable recording. When destroyed it rewrites the manifest
// one last time, with "complete": true only after finish().
class Recorder : public Device {
 public:
  // The run made every request it meant to: the recording is complete.
  virtual void finish() = 0;
};

// Records `inner` in `dir`. Creates `dir`; a recording already in it is replaced (its sample
// files and leftover temporary files are deleted). The directory is locked (flock) while the
// recorder lives: a second recorder into it is refused. Throws RawDirError (Kind::Measurement)
// when the directory cannot be written or is in use.
std::unique_ptr<Recorder> record_to(std::unique_ptr<Device> inner, const std::filesystem::path& dir,
                                    std::string tool_version = {});

}  // namespace gputopo::device::record
