#include "cli/device_source.hpp"

#include "cli/host_source.hpp"
#include "device/cuda/cuda_backend.hpp"
#include "device/gpu_open.hpp"
#include "device/hip/hip_backend.hpp"
#include "device/record/recording.hpp"
#include "device/record/replay.hpp"
#include "device/sim/host.hpp"
#include "device/sim/sim_device.hpp"
#include "report/run_info.hpp"

namespace gputopo::cli {
namespace {

using device::no_gpu;

// GPU -d N of a simulated host.
std::unique_ptr<device::Device> open_host_gpu(const std::string& host, const Options& o) {
  device::sim::SimHost sim;
  try {
    sim = device::sim::open_host(device::sim::load_host_config(host), o.seed);
  } catch (const device::Error& e) {
    if (e.kind() == device::Error::Kind::BadRequest)
      throw UsageError(std::string("--sim: ") + e.what());
    throw;
  }
  if (o.device >= static_cast<int>(sim.gpus.size()))
    throw device::Error(device::Error::Kind::NoDevice,
                        "GPU " + std::to_string(o.device) + " does not exist: the simulated host " +
                            host + " has " + std::to_string(sim.gpus.size()) +
                            " GPUs (index 0 to " + std::to_string(sim.gpus.size() - 1) + ")");
  return std::move(sim.gpus[static_cast<std::size_t>(o.device)]);
}

std::unique_ptr<device::Device> open_sim(const std::string& preset_or_file, const Options& o) {
  if (is_host_config(preset_or_file)) return open_host_gpu(preset_or_file, o);
  if (o.device != 0)
    throw device::Error(device::Error::Kind::NoDevice,
                        "GPU " + std::to_string(o.device) +
                            " does not exist: the simulated host has 1 GPU (index 0)");
  try {
    return device::sim::open(preset_or_file, o.seed);
  } catch (const device::Error& e) {
    if (e.kind() == device::Error::Kind::BadRequest)
      throw UsageError(std::string("--sim: ") + e.what());
    throw;
  }
}

// True when the host has no GPU at all or no driver (as opposed to a bad index or an old GPU):
// no NVIDIA GPU, and no AMD GPU where this build has the HIP backend.
// The AMD clause joins the reason only where the NVIDIA driver did not answer.
bool no_gpu_here(std::string& why) {
  bool nvidia_driver = true;
  try {
    device::cuda::list_devices();
    return false;
  } catch (const device::Error& e) {
    why = e.what();
    if (!no_gpu(e)) return false;
    nvidia_driver = e.kind() != device::Error::Kind::NoDriver;
  }
  if (!device::hip::built()) return true;
  try {
    device::hip::open(0);
    return false;
  } catch (const device::Error& e) {
    if (!nvidia_driver) why += std::string("; AMD: ") + e.what();
    return no_gpu(e);
  }
}

}  // namespace

bool no_nvidia_gpu_here(std::string& why) {
  try {
    device::cuda::list_devices();
    return false;
  } catch (const device::Error& e) {
    why = e.what();
    return no_gpu(e);
  }
}

OpenedDevice open_device(const Options& o, bool fall_back_to_sim, std::ostream& notices) {
  OpenedDevice opened;
  std::string why;
  if (o.replay_dir) {
    try {
      auto replay = device::record::open_replay(*o.replay_dir);
      opened.cut_short = replay->cut_short();
      opened.device = std::move(replay);
    } catch (const device::record::RawDirError& e) {
      throw UsageError(std::string(to_string(o.command)) + " " + *o.replay_dir + ": " + e.what());
    }
  } else if (o.sim) {
    opened.device = open_sim(*o.sim, o);
    opened.sim = *o.sim;
  } else if (fall_back_to_sim && no_gpu_here(why)) {
    if (o.device != 0)
      throw device::Error(
          device::Error::Kind::NoDevice,
          "GPU " + std::to_string(o.device) + " does not exist: no usable GPU (" + why + ")");
    if (!o.quiet)
      notices << "gputopo: no usable GPU (" << why << "); running on the SIMULATED GPU '"
              << kFallbackPreset << "' instead\n";
    opened.device = open_sim(kFallbackPreset, o);
    opened.sim = kFallbackPreset;
  } else {
    opened.device = device::open_gpu(o.device);
  }
  if (o.raw_dir) {
    try {
      auto recorder =
          device::record::record_to(std::move(opened.device), *o.raw_dir, report::tool_version());
      opened.recorder = recorder.get();
      opened.device = std::move(recorder);
    } catch (const device::Error& e) {
      throw UsageError(std::string("--raw ") + *o.raw_dir + ": " + e.what());
    }
  }
  return opened;
}

}  // namespace gputopo::cli
