#pragma once

#include <cuda_runtime.h>

#include "device/device.hpp"

namespace gputopo::device::cuda {

// The link from GPU `device` to GPU `peer`: peer access and atomics from the runtime, NVLink links
// and generation from NVML (PCIe where NVML finds no NVLink to the peer).
PeerLink peer_link(int device, int peer);

// Timed copies between GPU `device` and its host or a peer (links.hpp). Pinned host copies and peer
// copies are timed with events on `stream`; pageable host copies with the host's clock around the
// copy and its completion, since the driver stages them through the CPU.
TransferResult run_transfer(int device, cudaStream_t stream, const TransferRequest& request);

}  // namespace gputopo::device::cuda
