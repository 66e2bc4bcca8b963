#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device/device.hpp"

// A simulated host of several GPUs with the links between them and to the host (docs/sim.md,
// "Hosts").
namespace gputopo::device::sim {

struct SimHostLink {
  double pinned_h2d_gbps = 0, pinned_d2h_gbps = 0;
  double pageable_h2d_gbps = 0, pageable_d2h_gbps = 0;
  double latency_us = 0;
  double remote_numa_factor = 1;  // bandwidth from a buffer on another NUMA node, relative
};

struct SimPeerLinkType {
  PeerLink link;
  double gbps = 0;        // one direction
  double bidir_gbps = 0;  // both directions together
  double latency_us = 0;
  double load_latency_ns = 0;  // a dependent load from the peer's memory; 0: not modelled
};

struct SimHostGpu {
  std::string preset;
  int numa_node = 0;
  SimHostLink host_link;
  bool fails = false;  // every measurement on this GPU fails (tests)
};

struct SimHostConfig {
  std::string origin;  // the preset name or file
  std::vector<SimHostGpu> gpus;
  std::vector<int> numa_nodes;
  std::map<std::string, SimPeerLinkType> link_types;
  std::vector<std::vector<std::string>> links;  // [from][to]: a link type, "" on the diagonal
  double noise = 0.01;                          // relative standard deviation of a copy's time
};

struct SimHost {
  std::vector<std::unique_ptr<Device>> gpus;
  std::vector<int> numa_nodes;
};

// The host presets built into the library, sorted.
std::vector<std::string> host_preset_names();
bool is_host_preset(const std::string& name);

// A host preset or the path of a host configuration file. Throws Error(BadRequest) with one line
// naming the file, the field and the reason.
SimHostConfig load_host_config(const std::string& preset_or_file);

// The GPUs of the host, index 0 to N-1, each answering peer_link and transfer from the
// configuration; GPU i's noise is seeded from `seed` and i.
SimHost open_host(const SimHostConfig& config, std::uint64_t seed = 1);

}  // namespace gputopo::device::sim
