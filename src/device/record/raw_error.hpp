#pragma once

#include <string>

#include "device/device.hpp"

namespace gputopo::device::record {

// Any problem writing or reading a raw directory. The message is one line that names the file (and
// the line or JSON path) and the reason. Kind::Measurement while recording (a run whose raw output
// could not be written is a failed run, exit 4); Kind::NoDevice while opening a recording for
// replay (there is nothing to measure with, exit 3; a CLI may prefer to call it a usage error).
class RawDirError : public Error {
 public:
  using Error::Error;
};

}  // namespace gputopo::device::record
