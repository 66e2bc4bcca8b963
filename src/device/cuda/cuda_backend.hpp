#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/device.hpp"

// Entry points of the CUDA backend. This header includes no CUDA headers: callers build without
// the toolkit, and a build without nvcc links a stand-in that throws Error(NoDriver).
namespace gputopo::device::cuda {

// One line per GPU of the host (index, name, compute capability, memory, PCI bus id).
struct ListedDevice {
  int index = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  std::uint64_t memory_bytes = 0;
  std::string pci_bus_id;
};

// Throws Error (NoDriver, NoDevice) when there is nothing to list.
std::vector<ListedDevice> list_devices();

// Opens device `index`. Throws Error: NoDriver, NoDevice (index out of range: the message says how
// many devices exist), Unsupported (compute capability below the minimum: the message says which).
std::unique_ptr<Device> open(int index);

}  // namespace gputopo::device::cuda
