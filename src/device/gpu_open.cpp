#include "device/gpu_open.hpp"

#include <string>

#include "device/cuda/cuda_backend.hpp"
#include "device/hip/hip_backend.hpp"

namespace gputopo::device {

bool no_gpu(const Error& e) {
  return e.kind() == Error::Kind::NoDriver || e.kind() == Error::Kind::NoDevice;
}

std::unique_ptr<Device> open_gpu(int index) {
  if (!hip::built()) return cuda::open(index);
  try {
    return cuda::open(index);
  } catch (const Error& e) {
    if (!no_gpu(e)) throw;
    try {
      return hip::open(index);
    } catch (const Error& h) {
      // Where the NVIDIA driver answered, its answer is the whole story: no AMD clause.
      if (e.kind() != Error::Kind::NoDriver) throw;
      throw Error(h.kind(), std::string(e.what()) + "; AMD: " + h.what());
    }
  }
}

}  // namespace gputopo::device
