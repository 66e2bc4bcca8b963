#include "device/hip/hip_backend.hpp"

namespace gputopo::device::hip {

bool built() { return false; }

std::unique_ptr<Device> open(int) {
  throw Error(Error::Kind::NoDriver,
              "this gputopo was built without the HIP backend (no hipcc at configure time); "
              "use --sim PRESET, or rebuild with hipcc (docs/amd.md)");
}

}  // namespace gputopo::device::hip
