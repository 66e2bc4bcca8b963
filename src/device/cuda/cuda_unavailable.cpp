#include "device/cuda/cuda_backend.hpp"

namespace gputopo::device::cuda {
namespace {
[[noreturn]] void no_backend() {
  throw Error(Error::Kind::NoDriver,
              "this gputopo was built without the CUDA backend (no nvcc at configure time); "
              "use --sim PRESET, or rebuild with the CUDA toolkit");
}
}  // namespace

std::vector<ListedDevice> list_devices() { no_backend(); }
std::unique_ptr<Device> open(int) { no_backend(); }

}  // namespace gputopo::device::cuda
