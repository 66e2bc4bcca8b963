#include "cli/host_source.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/device_source.hpp"
#include "device/cuda/cuda_backend.hpp"
#include "device/input_file.hpp"
#include "device/sim/host.hpp"
#include "device/sim/sim_device.hpp"
#include "model/json_input.hpp"
#include "numa/locality.hpp"
#include "report/run_info.hpp"

namespace gputopo::cli {
bool is_host_config(const std::string& name) {
  if (device::sim::is_host_preset(name)) return true;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name, ec)) return false;
  try {
    const auto j = model::parse_json_input(device::read_input_file(name, 1 << 20));
    return j.is_object() && j.contains("gpus");
  } catch (const std::exception&) {
    return false;
  }
}

namespace {

// "0-1,3" -> {0, 1, 3}; empty on anything else.
std::vector<int> parse_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream s(text);
  std::string part;
  try {
    while (std::getline(s, part, ',')) {
      const auto dash = part.find('-');
      const int lo = std::stoi(part.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
      for (int i = lo; i <= hi && i - lo < 4096; ++i) out.push_back(i);
    }
  } catch (const std::exception&) {
    return {};
  }
  return out;
}

host::HostNuma numa_of_this_host() {
  host::HostNuma numa;
  std::ifstream in("/sys/devices/system/node/online");
  std::string line;
  if (!in || !std::getline(in, line)) {
    numa.why = "the kernel does not list NUMA nodes (/sys/devices/system/node/online)";
    return numa;
  }
  numa.nodes = parse_list(line);
  if (numa.nodes.empty()) numa.why = "cannot read /sys/devices/system/node/online: " + line;
  return numa;
}

void add(OpenedHost& h, std::unique_ptr<device::Device> gpu, int numa_node, model::Json locality) {
  h.gpus.push_back(std::move(gpu));
  h.why.emplace_back();
  h.kinds.push_back(device::Error::Kind::Measurement);
  h.numa_node.push_back(numa_node);
  h.locality.push_back(std::move(locality));
}

void open_sim_host(OpenedHost& h, const std::string& name, std::uint64_t seed) {
  h.sim = name;
  if (!is_host_config(name)) {
    Options one;
    one.sim = name;
    one.seed = seed;
    std::ostringstream ignored;
    add(h, open_device(one, false, ignored).device, -1,
        {{"notEstablished", "a simulated GPU preset has no host: give a host preset"}});
    h.numa.why = "a simulated GPU preset has no host: give a host preset (docs/sim.md)";
    return;
  }
  device::sim::SimHost sim;
  device::sim::SimHostConfig config;
  try {
    config = device::sim::load_host_config(name);
    sim = device::sim::open_host(config, seed);
  } catch (const device::Error& e) {
    if (e.kind() == device::Error::Kind::BadRequest)
      throw UsageError(std::string("--sim: ") + e.what());
    throw;
  }
  h.numa.nodes = sim.numa_nodes;
  for (std::size_t i = 0; i < sim.gpus.size(); ++i) {
    const int node = config.gpus[i].numa_node;
    add(h, std::move(sim.gpus[i]), node,
        {{"numaNodes", std::to_string(node)}, {"source", "the simulated host's configuration"}});
  }
}

void open_cuda_host(OpenedHost& h) {
  h.numa = numa_of_this_host();
  for (const auto& d : device::cuda::list_devices()) {
    const numa::Locality l = numa::locality_of(d.pci_bus_id);
    model::Json locality =
        l.established
            ? model::Json{{"numaNodes", l.numa_nodes}, {"cpus", l.cpus}, {"source", "hwloc"}}
            : model::Json{{"notEstablished", l.reason}};
    const auto nodes = l.established ? parse_list(l.numa_nodes) : std::vector<int>{};
    const int node = nodes.size() == 1 ? nodes.front() : -1;
    try {
      add(h, device::cuda::open(d.index), node, locality);
    } catch (const device::Error& e) {
      add(h, nullptr, node, locality);
      h.why.back() = e.what();
      h.kinds.back() = e.kind();
    }
  }
}

}  // namespace

OpenedHost open_host(const Options& o, std::ostream& notices) {
  OpenedHost h;
  std::string why;
  if (o.sim) {
    open_sim_host(h, *o.sim, o.seed);
  } else if (no_nvidia_gpu_here(why)) {
    if (!o.quiet)
      notices << "gputopo: no usable GPU (" << why << "); running on the SIMULATED host '"
              << kFallbackHost << "' instead\n";
    open_sim_host(h, kFallbackHost, o.seed);
  } else {
    open_cuda_host(h);
  }
  h.recorders.assign(h.gpus.size(), nullptr);
  if (o.raw_dir) {
    for (std::size_t i = 0; i < h.gpus.size(); ++i) {
      if (!h.gpus[i]) continue;
      const auto dir = std::filesystem::path(*o.raw_dir) / ("gpu" + std::to_string(i));
      try {
        auto recorder =
            device::record::record_to(std::move(h.gpus[i]), dir, report::tool_version());
        h.recorders[i] = recorder.get();
        h.gpus[i] = std::move(recorder);
      } catch (const device::Error& e) {
        throw UsageError(std::string("--raw ") + dir.string() + ": " + e.what());
      }
    }
  }
  return h;
}

}  // namespace gputopo::cli
