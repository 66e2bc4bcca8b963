#pragma once

#include <filesystem>
#include <memory>

#include "device/device.hpp"
#include "device/record/raw_error.hpp"

namespace gputopo::device::record {

// A Device that answers from a directory written by record_to. A request identical to a recorded
// one (every request field and the batch settings) gets the recorded results: the next recorded
// call is tried first, then the recorded calls with the same content, unused ones first. A recorded
// error is raised again. A request never recorded throws Error(Kind::BadRequest). info() is the
// recorded DeviceInfo.
//
// The whole recording is read and checked here: a missing directory, a bad manifest, a missing
// sample file or a malformed row throws RawDirError (Kind::NoDevice) naming the file and line.
class Replay : public Device {
 public:
  // The recording was not marked complete: the run that made it stopped early, and requests
  // past its last call have no answer.
  virtual bool cut_short() const = 0;
};

std::unique_ptr<Replay> open_replay(const std::filesystem::path& dir);

}  // namespace gputopo::device::record
