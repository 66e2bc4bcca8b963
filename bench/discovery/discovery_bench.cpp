// Times each phase of a full discovery on a device: the simulator by default, or a CUDA GPU with
// --device N. Prints one row per probe and the total.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "device/cuda/cuda_backend.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"

namespace {

using namespace gputopo;

struct Timer final : discovery::Progress {
  std::size_t batches = 0;
  std::vector<std::size_t> per_phase;
  void begin(std::string_view, std::size_t, std::size_t) override { batches = 0; }
  void advance(std::size_t done, std::size_t) override { batches = done; }
  void end(std::string_view phase, double seconds, std::string_view status,
           const discovery::Result*) override {
    per_phase.push_back(batches);
    std::fprintf(stderr, "  %-22s %8.3f s  %s\n", std::string(phase).c_str(), seconds,
                 std::string(status).c_str());
  }
};

std::string value_of(const discovery::Result& r, const std::string& element,
                     const std::string& key) {
  for (const auto& e : r.memory)
    if (e.key == element)
      if (const auto* a = model::find(e.attributes, key)) return a->value.dump();
  return "-";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"discovery_bench: wall time of each discovery phase"};
  std::string sim = "h100-sxm";
  int device_index = -1;
  std::string only;
  int repeats = 1;
  bool json = false;
  app.add_option("--sim", sim, "simulator preset or config file (default h100-sxm)");
  app.add_option("--device", device_index, "measure CUDA device N instead of the simulator");
  app.add_option("--only", only, "comma-separated elements or probes");
  app.add_option("--repeats", repeats, "full runs, for consistency figures")
      ->check(CLI::Range(1, 20));
  app.add_flag("--json", json, "also print the memory elements as JSON");
  CLI11_PARSE(app, argc, argv);

  try {
    std::unique_ptr<device::Device> dev =
        device_index >= 0 ? device::cuda::open(device_index) : device::sim::open(sim, 1);
    discovery::Options options;
    for (std::size_t b = 0, e; b < only.size(); b = e + 1) {
      e = only.find(',', b);
      if (e == std::string::npos) e = only.size();
      if (e > b) options.only.insert(only.substr(b, e - b));
    }
    std::printf("device: %s%s\n", dev->info().name().c_str(),
                dev->info().simulated ? " (simulated)" : "");
    for (int rep = 0; rep < repeats; ++rep) {
      Timer timer;
      const auto r = discovery::discover(*dev, options, timer, nullptr);
      std::printf("\nrun %d\n%-22s %10s %8s  %s\n", rep + 1, "phase", "seconds", "batches",
                  "status");
      for (std::size_t i = 0; i < r.timings.size(); ++i)
        std::printf("%-22s %10.4f %8zu  %s\n", r.timings[i].probe.c_str(), r.timings[i].seconds,
                    i < timer.per_phase.size() ? timer.per_phase[i] : 0,
                    r.timings[i].status.c_str());
      std::printf("%-22s %10.4f\n", "total", r.seconds);
      std::printf("sizes:");
      for (const char* e : {"l1", "texture", "readOnly", "constantL1", "constantL15"})
        std::printf(" %s=%s", e, value_of(r, e, "size").c_str());
      std::printf("\nlines:");
      for (const char* e : {"l1", "texture", "readOnly", "constantL1"})
        std::printf(" %s=%s", e, value_of(r, e, "lineSize").c_str());
      std::printf("\nsharedWith(l1)=%s countPerSm(l1)=%s\n",
                  value_of(r, "l1", "sharedWith").c_str(), value_of(r, "l1", "countPerSm").c_str());
      for (const auto& w : r.warnings) std::printf("warning: %s\n", w.c_str());
      if (json) {
        model::Json j = model::Json::object();
        for (const auto& e : r.memory) j[e.key] = model::to_json(e.attributes);
        std::printf("%s\n", j.dump(1).c_str());
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "discovery_bench: %s\n", e.what());
    return 3;
  }
  return 0;
}
