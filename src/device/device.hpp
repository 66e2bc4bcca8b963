#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "device/compute_request.hpp"
#include "device/device_state.hpp"
#include "device/info.hpp"
#include "device/links.hpp"
#include "device/requests.hpp"
#include "device/results.hpp"
#include "model/printable.hpp"

namespace gputopo::device {

// Every failure a backend reports. `kind` decides the exit code (docs/cli.md). The message is one
// line: control characters in it (from a file name or a JSON key it quotes) are escaped.
class Error : public std::runtime_error {
 public:
  enum class Kind {
    NoDriver,     // no driver, or the driver cannot be loaded        -> exit 3
    NoDevice,     // no GPU, the index is out of range, or the GPU     -> exit 3
                  // cannot be used (exclusive-process mode held elsewhere, no context or
                  // stream): the message gives the driver's reason
    Unsupported,  // the GPU is older than the supported minimum       -> exit 3
    BadRequest,   // the request cannot be run on this device          -> exit 4
    Measurement,  // a measurement failed                              -> exit 4
    OutOfMemory,  // the device has not enough free memory for the     -> exit 4 unless the
                  // request (other processes hold it)                     run absorbs it
    Lost,         // the device cannot be used any more in this        -> exit 4, the run ends
                  // process: a kernel overran its deadline and cannot be cancelled, the GPU
                  // fell off the bus or hit a sticky error
  };
  Error(Kind kind, const std::string& what)
      : std::runtime_error(model::printable(what)), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// The one interface between discovery and hardware. Probes cannot tell which backend they use.
class Device {
 public:
  virtual ~Device() = default;

  virtual const DeviceInfo& info() const = 0;

  // Fine-grained pointer chases; results in request order.
  virtual ChaseBatchResult chase(const ChaseBatch& batch) = 0;

  // A warms, B warms, A is timed; the results hold A's timed loads, in request order.
  virtual ChaseBatchResult interfere(const InterferenceBatch& batch) = 0;

  // Bandwidth with a launch shape the backend tunes.
  virtual StreamResult stream(const StreamRequest& request) = 0;

  // SMs that run together in one thread-block cluster of `cluster_size` blocks, one group per
  // cluster (e.g. size 2 pairs the SMs of a TPC). Empty where clusters are not supported.
  virtual std::vector<std::vector<int>> co_resident_sms(int cluster_size) = 0;

  // Compute micro-kernels (instruction latency and throughput); results in request order. A
  // backend without them refuses every batch.
  virtual ComputeBatchResult compute(const ComputeBatch&) {
    throw Error(Error::Kind::BadRequest, "this device runs no compute micro-kernels");
  }

  // What the driver says about other users and the card's health now (docs/busy.md). Every
  // field is optional; a backend that cannot tell returns the default.
  virtual DeviceState state() { return {}; }

  // The link from this GPU to GPU `peer` (its DeviceInfo::index) of the same host. A backend
  // without peers throws BadRequest.
  virtual PeerLink peer_link(int peer) {
    throw Error(Error::Kind::BadRequest, "GPU " + std::to_string(peer) + " is not a peer here");
  }

  // The L2 read rate of a set of SMs over a set of lines. A backend without it refuses.
  virtual ReadRateResult read_rate(const ReadRateRequest&) {
    throw Error(Error::Kind::BadRequest, "this device times no L2 read rates of SM sets");
  }

  // Reductions from every SM to a set of lines, timed. A backend without them refuses.
  virtual ReductionResult reductions(const ReductionRequest&) {
    throw Error(Error::Kind::BadRequest, "this device times no L2 reductions");
  }

  // Timed copies between this GPU and its host or a peer (links.hpp).
  virtual TransferResult transfer(const TransferRequest&) {
    throw Error(Error::Kind::BadRequest, "this device times no transfers");
  }

  // The calls that follow belong to the discovery phase `name`. The simulator seeds their noise
  // by it, so that a phase added to a run leaves the other phases' values as they were; the CUDA
  // backend gives back the chase arrays over 1 GiB that the phase before kept.
  virtual void begin_phase(std::string_view /*name*/) {}
};

}  // namespace gputopo::device
