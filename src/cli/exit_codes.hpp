#pragma once

#include "device/device.hpp"

// The exit codes of docs/cli.md.
namespace gputopo::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 2,        // bad command line or output path
  kExitNoGpu = 3,        // no usable GPU or driver
  kExitMeasurement = 4,  // a measurement failed or the run was interrupted; partial results written
  kExitDisturbed = 5,    // the run ended, but other work on the GPU disturbed some phases
  kExitDiffer = 6,       // compare: the GPUs differ
};

inline int exit_code_for(device::Error::Kind kind) {
  switch (kind) {
    case device::Error::Kind::NoDriver:
    case device::Error::Kind::NoDevice:
    case device::Error::Kind::Unsupported:
      return kExitNoGpu;
    case device::Error::Kind::BadRequest:
    case device::Error::Kind::Measurement:
    case device::Error::Kind::OutOfMemory:
    case device::Error::Kind::Lost:
      return kExitMeasurement;
  }
  return kExitMeasurement;
}

}  // namespace gputopo::cli
