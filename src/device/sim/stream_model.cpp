#include "device/sim/stream_model.hpp"

#include <algorithm>
#include <cmath>

#include "device/sim/rng.hpp"

namespace gputopo::device::sim {
namespace {

// The blocks of a stream launch: as many as the SMs hold of the largest block.
std::uint32_t sm_stream_blocks(const SimConfig& config) {
  return static_cast<std::uint32_t>(
      config.device.sm_count *
      std::max(1, config.device.max_threads_per_sm / config.device.max_threads_per_block));
}
// What the CUDA backend's timed launches move at least (StreamRunner).
constexpr double kMinBytesPerLaunch = 2048.0 * 1024 * 1024;
constexpr double kMinSmBytesPerLaunch = 16384.0 * 1024 * 1024;

// The repeats of a stream that takes `elapsed` seconds per launch and moves `moved` bytes.
StreamResult repeats(const SimConfig& config, const StreamRequest& request, std::uint64_t seed,
                     double moved, double elapsed) {
  StreamResult result;
  result.threads_per_block = static_cast<std::uint32_t>(config.device.max_threads_per_block);
  result.blocks = sm_stream_blocks(config);
  result.vector_bytes = 16;
  Rng rng(seed);
  double total = 0;
  for (std::uint32_t i = 0; i < request.repeats; ++i) {
    // What gets in a stream's way only slows it: no repeat beats the configured rate.
    const double seconds_taken =
        elapsed * (1 + config.bandwidth.jitter_fraction * std::abs(rng.normal()) * 0.5);
    result.gbps.push_back(moved / seconds_taken / 1e9);
    total += seconds_taken;
  }
  result.conditions.sm_clock_mhz_before = config.device.sm_clock_max_mhz;
  result.conditions.sm_clock_mhz_after = config.device.sm_clock_max_mhz;
  result.conditions.elapsed_ns = total * 1e9;
  result.conditions.elapsed_cycles = total * config.device.sm_clock_max_mhz * 1e6;
  return result;
}

// Every SM reads its own slice at `bytes_per_clk` per clock, kMinSmBytesPerLaunch per launch.
StreamResult model_sm_stream(const SimConfig& config, const StreamRequest& request,
                             std::uint64_t seed, double bytes_per_clk) {
  const double gbps = bytes_per_clk * config.device.sm_count * config.device.sm_clock_max_mhz / 1e3;
  const double moved = kMinSmBytesPerLaunch;
  return repeats(config, request, seed, moved,
                 moved / (gbps * 1e9) + config.bandwidth.launch_overhead_us * 1e-6);
}

}  // namespace

StreamResult model_stream(const SimConfig& config, const StreamRequest& request,
                          std::uint64_t seed) {
  const BandwidthSpec& bw = config.bandwidth;
  const Space space = stream_space(request);
  if (space == Space::L1 || space == Space::Shared)
    return model_sm_stream(
        config, request, seed,
        space == Space::L1 ? bw.l1_read_bytes_per_clk : bw.shared_read_bytes_per_clk);
  const double bytes = static_cast<double>(request.bytes);
  const double footprint = request.kind == StreamKind::Copy ? 2 * bytes : bytes;
  const double in_l2 = std::min(1.0, static_cast<double>(config.l2_bytes()) / footprint);
  const auto seconds = [&](double amount, double l2_gbps, double dram_gbps) {
    return amount * (in_l2 / l2_gbps + (1 - in_l2) / dram_gbps) / 1e9;
  };
  // A write-through L2 passes every store on to device memory.
  const double l2_write_gbps =
      config.l2.write_back ? bw.l2_write_gbps : std::min(bw.l2_write_gbps, bw.dram_write_gbps);
  double moved = bytes;
  double busy = 0;
  switch (request.kind) {
    case StreamKind::Read:
      if (request.sharing == StreamSharing::Shared) {
        // Every block reads the whole buffer: the SMs together move it once a block.
        const double blocks = static_cast<double>(sm_stream_blocks(config));
        const double gbps = bw.l2_shared_read_gbps > 0 ? bw.l2_shared_read_gbps : bw.l2_read_gbps;
        moved = bytes * blocks;
        busy = seconds(moved, gbps, bw.dram_read_gbps);
        break;
      }
      busy = seconds(bytes, bw.l2_read_gbps, bw.dram_read_gbps);
      break;
    case StreamKind::Write:
      busy = seconds(bytes, l2_write_gbps, bw.dram_write_gbps);
      break;
    case StreamKind::Copy:
      moved = 2 * bytes;
      busy = seconds(bytes, bw.l2_read_gbps, bw.dram_read_gbps) +
             seconds(bytes, l2_write_gbps, bw.dram_write_gbps);
      break;
  }
  // A tuned kernel streams a small buffer several times in one launch, so that the launch
  // overhead does not swamp it: at least kMinBytesPerLaunch move per repeat.
  const double passes = std::max(1.0, std::ceil(kMinBytesPerLaunch / moved));
  moved *= passes;
  const double elapsed = busy * passes + bw.launch_overhead_us * 1e-6;

  return repeats(config, request, seed, moved, elapsed);
}

}  // namespace gputopo::device::sim
