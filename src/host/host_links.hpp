#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device/device.hpp"
#include "model/attribute.hpp"

// The links of a host's GPUs, measured through the Device interface: the peer-to-peer matrix for
// every ordered pair and each GPU's host link (docs/schema.md, "The host document").
namespace gputopo::host {

struct LinkOptions {
  std::uint64_t bytes = 64ull << 20;  // a host bandwidth copy, per direction
  // A peer bandwidth copy, per direction: a copy's fixed cost (about 9 us on NVLink 4) stays
  // under 2 % of its time at 400 GB/s.
  std::uint64_t peer_bytes = 256ull << 20;
  int repeats = 5;                         // copies per bandwidth value
  std::uint64_t latency_bytes = 4;         // a latency copy
  int latency_repeats = 20;                // copies per latency value
  std::uint64_t load_bytes = 16ull << 20;  // the chain of a peer load latency
  int load_repeats = 5;                    // chains per peer load latency
  double outlier_fraction = 0.15;          // off its group's median by more: an outlier
};

// One GPU of the host: its device, or nullptr when it could not be used (`why` says why), and
// the NUMA node closest to it (-1 unknown).
struct LinkedGpu {
  device::Device* device = nullptr;
  std::string why;
  int numa_node = -1;
};

// The host's NUMA nodes (empty: unknown, `numa_why` says why).
struct HostNuma {
  std::vector<int> nodes;
  std::string why;
};

// The "peers", "hostLinks" and "outliers" members of the host section. A copy that fails leaves
// its value not established with the error; a GPU lost on the way is not asked again.
model::Json measure_links(std::vector<LinkedGpu>& gpus, const HostNuma& numa,
                          const LinkOptions& options = {});

}  // namespace gputopo::host
