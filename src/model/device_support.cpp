#include "model/device_support.hpp"

namespace gputopo::model {

bool compute_capability_at_least(int major, int minor, int min_major, int min_minor) {
  return major > min_major || (major == min_major && minor >= min_minor);
}

std::string unsupported_gpu_message(int index, std::string_view name, int major, int minor,
                                    int min_major, int min_minor) {
  const std::string needed = std::to_string(min_major) + "." + std::to_string(min_minor);
  return "GPU " + std::to_string(index) + " (" + std::string(name) + ") has compute capability " +
         std::to_string(major) + "." + std::to_string(minor) + "; this gputopo build needs " +
         needed + " or newer (its lowest CUDA architecture is sm_" + std::to_string(min_major) +
         std::to_string(min_minor) +
         "); use --sim PRESET to run on a simulated GPU, or a CUDA 12 build for older GPUs";
}

std::string missing_gpu_message(int index, int count) {
  std::string have = count == 1 ? "1 CUDA GPU (index 0)"
                                : std::to_string(count) + " CUDA GPUs (indices 0 to " +
                                      std::to_string(count - 1) + ")";
  return "GPU " + std::to_string(index) + " does not exist: this host has " + have +
         "; choose one with -d N";
}

}  // namespace gputopo::model
