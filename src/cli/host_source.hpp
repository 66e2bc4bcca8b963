#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "device/device.hpp"
#include "device/record/recording.hpp"
#include "host/host_links.hpp"
#include "model/attribute.hpp"

namespace gputopo::cli {

// Every GPU of the host for -d all: the simulated host of --sim (a host preset or file; a GPU
// preset or file is a host of that one GPU), else every CUDA GPU, else the simulated host
// kFallbackHost with a notice. A GPU that cannot be opened stays in its place with the reason.
struct OpenedHost {
  std::vector<std::unique_ptr<device::Device>> gpus;  // nullptr where the GPU could not be opened
  std::vector<std::string> why;                       // per GPU: why it could not be opened
  std::vector<device::Error::Kind> kinds;             // per GPU: the kind of that error
  std::vector<int> numa_node;                         // per GPU: the closest NUMA node, -1 unknown
  std::vector<model::Json> locality;                  // per GPU: the host section's "locality"
  host::HostNuma numa;
  std::string sim;                                   // the preset or file when simulated, "" else
  std::vector<device::record::Recorder*> recorders;  // with --raw DIR: DIR/gpuN, per GPU
};

inline constexpr const char* kFallbackHost = "h100-x1";

// True for a host preset, or a file whose configuration names its GPUs (a host configuration).
bool is_host_config(const std::string& preset_or_file);

OpenedHost open_host(const Options& options, std::ostream& notices);

}  // namespace gputopo::cli
