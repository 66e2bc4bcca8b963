#pragma once

#include <cstdint>
#include <string>
#include <vector>

// The links of a GPU to its host and to the other GPUs of the host (docs/schema.md, host section).
namespace gputopo::device {

// What the driver says about the path from one GPU to another GPU `peer` of the same host.
struct PeerLink {
  bool access = false;        // the GPU can map the peer's memory (cudaDeviceCanAccessPeer)
  bool atomics = false;       // native atomics over the link (cudaDevP2PAttrNativeAtomicSupported)
  std::string type;           // "NVLink", "PCIe"
  int nvlink_count = 0;       // NVLink links of the GPU that reach the peer (NVML); 0 on PCIe
  int nvlink_generation = 0;  // NVLink version (NVML); 0 on PCIe or when unknown
  int performance_rank = 0;   // the driver's relative rank of the link (0: best)
  std::string nvlink_reason;  // why nvlink_count/generation are unknown, "" when known
};

enum class TransferKind {
  HostToDevice,       // host buffer -> this GPU
  DeviceToHost,       // this GPU -> host buffer
  PeerRead,           // the peer's memory -> this GPU's memory
  PeerWrite,          // this GPU's memory -> the peer's memory
  PeerBidirectional,  // both at once, on two streams: `bytes` each way
  PeerLoad,           // dependent loads by one thread of this GPU through a chain in the peer's
                      // memory of `bytes` at a 4 KiB stride; each sample is seconds per load
};

enum class HostMemory { Pinned, Pageable };

struct TransferRequest {
  TransferKind kind = TransferKind::HostToDevice;
  HostMemory memory = HostMemory::Pinned;  // host transfers only
  int numa_node = -1;  // host transfers: the NUMA node the buffer is bound to; -1: the OS's choice
  int peer = -1;       // peer transfers: the peer's device index
  std::uint64_t bytes = 0;  // per direction
  int repeats = 1;
};

// Every kind runs once untimed before its repeats: the first copy of a buffer pays for mapping it,
// and the first after an idle spell for the link waking up.
struct TransferResult {
  std::vector<double> seconds;  // one per repeat, event-timed on the device
  bool numa_bound = false;      // the buffer was bound to numa_node
  std::string numa_reason;      // why it was not, when numa_node >= 0
};

}  // namespace gputopo::device
