#pragma once

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

#include "cli/options.hpp"
#include "device/device.hpp"
#include "device/record/recording.hpp"
#include "model/printable.hpp"

namespace gputopo::cli {

// A bad --sim name or file, or a --raw directory that cannot be used: exit code 2. The message
// is one line (model::printable).
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(model::printable(what)) {}
};

// The preset the main job falls back to where no GPU or driver is present.
inline constexpr const char* kFallbackPreset = "h100-sxm";

struct OpenedDevice {
  std::unique_ptr<device::Device> device;
  std::string sim;                               // the preset or file when simulated, "" else
  device::record::Recorder* recorder = nullptr;  // `device` itself with --raw DIR
  bool cut_short = false;  // analyze: the run that made the recording stopped before its end
};

// True when the CUDA runtime finds no driver or no NVIDIA GPU (why in `why`); false when it lists
// GPUs or fails for another reason.
bool no_nvidia_gpu_here(std::string& why);

// The device the options name: --sim, else the CUDA GPU -d N. With `fall_back_to_sim`, a host
// without GPU or driver gets the simulated kFallbackPreset instead, with a notice on `notices`.
// With --raw DIR the device records every request. Throws device::Error (exit codes per kind)
// or UsageError.
OpenedDevice open_device(const Options& options, bool fall_back_to_sim, std::ostream& notices);

}  // namespace gputopo::cli
