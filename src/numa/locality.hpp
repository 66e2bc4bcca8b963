#pragma once

#include <string>

// Where a GPU sits in its host: the NUMA nodes and CPUs closest to it, from hwloc. hwloc is loaded
// at run time, so that the binary starts on a host without it and says so.
namespace gputopo::numa {

struct Locality {
  bool established = false;
  std::string numa_nodes;  // OS indexes as a list, "0" or "0-1"
  std::string cpus;        // OS indexes as a list, "0-31,64-95"
  std::string reason;      // why not established
};

// The locality of the PCI device `pci_bus_id` ("0000:18:00.0", as CUDA and NVML write it), from
// the hwloc library `library` (Debian's libhwloc15 by default).
Locality locality_of(const std::string& pci_bus_id, const std::string& library = "libhwloc.so.15");

}  // namespace gputopo::numa
