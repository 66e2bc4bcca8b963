#include <cuda_runtime_api.h>

#include <future>
#include <utility>

#include "device/cuda/cuda_backend.hpp"
#include "device/cuda/cuda_device.hpp"
#include "device/cuda/device_query.hpp"

namespace gputopo::device::cuda {

std::vector<ListedDevice> list_devices() {
  const int count = device_count();
  std::vector<ListedDevice> devices;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaError_t e = cudaGetDeviceProperties(&prop, i); e != cudaSuccess) {
      cudaGetLastError();
      throw Error(Error::Kind::NoDriver, "cannot read the properties of GPU " + std::to_string(i) +
                                             ": " + cudaGetErrorString(e));
    }
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) != cudaSuccess) cudaGetLastError();
    devices.push_back({i, prop.name, prop.major, prop.minor, prop.totalGlobalMem, bus});
  }
  return devices;
}

std::unique_ptr<Device> open(int index) {
  // The context (100-130 ms on an H200) is created while NVML answers the device query; the
  // device's constructor creates it again where this failed, and reports why.
  std::future<void> context = std::async(std::launch::async, [index] {
    if (cudaSetDevice(index) == cudaSuccess) cudaFree(nullptr);
    cudaGetLastError();
  });
  DeviceInfo info = query_device_info(index);
  context.wait();
  return make_cuda_device(std::move(info));
}

}  // namespace gputopo::device::cuda
