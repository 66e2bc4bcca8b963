#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "device/device.hpp"
#include "device/record/raw_layout.hpp"

namespace gputopo::device::record {

// One call of a recording, with its results or the error it raised.
struct RecordedCall {
  Op op = Op::Chase;
  std::string identity;    // the flat JSON of raw_layout.hpp's identity(): what replay matches on
  ChaseBatchResult batch;  // chase, interfere
  StreamResult stream;     // stream
  std::vector<std::vector<int>> groups;  // clusters
  ComputeBatchResult compute;            // compute
  PeerLink peer_link;                    // peerLink
  TransferResult transfer;               // transfer
  ReadRateResult read_rate;              // readRate
  ReductionResult reductions;            // reductions
  std::optional<Error::Kind> error;      // set when the call raised an error
  std::string error_message;
};

struct Recording {
  std::filesystem::path dir;
  std::optional<std::string> tool_version;
  bool complete = false;  // false: the run stopped before the recorder was closed
  DeviceInfo info;
  std::vector<RecordedCall> calls;
};

// Reads and checks a whole raw directory. Throws RawDirError (Kind::NoDevice) with one line that
// names the file, the line or JSON path, and the reason.
Recording load_recording(const std::filesystem::path& dir);

}  // namespace gputopo::device::record
