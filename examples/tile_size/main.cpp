// Sizes the tiles of a tiled single-precision matrix product from what gputopo measured: the
// shared-memory tiles of A and B a block stages, and the register tile's working set that the L1
// should hold. Usage: tile_size [--sim PRESET | --gpu N | --recording DIR]
#include <cmath>
#include <cstdio>
#include <gputopo/gputopo.hpp>
#include <string>

namespace {

gputopo::Device open(int argc, char** argv) {
  const std::string how = argc > 2 ? argv[1] : "--gpu";
  const std::string what = argc > 2 ? argv[2] : "0";
  if (how == "--sim") return gputopo::Device::simulated(what);
  if (how == "--recording") return gputopo::Device::recording(what);
  return gputopo::Device::gpu(std::stoi(what));
}

// The largest multiple of 16 whose square tiles of A and B (floats) fit `bytes`.
int tile_edge(double bytes, int tiles) {
  const int edge = static_cast<int>(std::sqrt(bytes / (tiles * sizeof(float))));
  return edge / 16 * 16;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    gputopo::Device device = open(argc, argv);
    gputopo::DiscoverOptions options;
    options.only = {"l1", "shared"};
    options.on_progress = [](const gputopo::Progress& p) {
      std::fprintf(stderr, "[%zu/%zu] %s\n", p.index + 1, p.count, p.phase.c_str());
    };
    const gputopo::Report report = device.discover(options);
    const auto shared = report.number("compute", "sharedMemoryPerBlockOptin");
    const gputopo::Value l1 = report.get("l1", "size");
    std::printf("%s%s\n", device.name().c_str(), report.simulated() ? " (simulated)" : "");
    if (!shared || !l1.available) {
      std::printf("cannot size the tiles: %s\n",
                  !shared ? "no shared-memory limit" : l1.reason.c_str());
      return 1;
    }
    std::printf("shared memory a block may use: %.0f B\n", *shared);
    std::printf("L1 (measured, confidence %.2f): %s\n", l1.confidence.value_or(0), l1.text.c_str());
    // A and B tiles double-buffered: four tiles in shared memory.
    const int shared_tile = tile_edge(*shared, 4);
    // Each thread's register tile streams a row panel of A and a column panel of B through the L1:
    // keep both panels of one block, two tiles' worth, within half the L1.
    const int l1_tile = tile_edge(*l1.number / 2, 2);
    std::printf("tile: %d x %d floats per block (double-buffered A and B in shared memory)\n",
                shared_tile, shared_tile);
    std::printf("L1 panel tile: %d x %d floats (A and B panels in half the L1)\n", l1_tile,
                l1_tile);
    return shared_tile > 0 && l1_tile > 0 ? 0 : 1;
  } catch (const gputopo::Error& e) {
    std::fprintf(stderr, "tile_size: %s\n", e.what());
    return 2;
  }
}
