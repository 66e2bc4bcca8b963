#include "checks.hpp"
#include "device/sim/sim_device.hpp"
#include "scratch_dir.hpp"
#include "targets.hpp"

namespace gputopo::fuzz {

void fuzz_sim_config(std::string_view input) {
  static const ScratchDir scratch("sim-config");
  const std::filesystem::path file = scratch.path() / "config.json";
  write_file(file, input);
  try {
    auto device = device::sim::make_device(device::sim::load_config(file.string()));
    (void)device->info();
  } catch (const device::Error& e) {
    expect_one_line("sim config", e.what());
    if (e.kind() != device::Error::Kind::BadRequest)
      throw Finding(std::string("sim config: an error of another kind than BadRequest: ") +
                    e.what());
    if (!std::string_view(e.what()).starts_with(file.string()))
      throw Finding(std::string("sim config: an error that does not name the file: ") + e.what());
  }
}

}  // namespace gputopo::fuzz
