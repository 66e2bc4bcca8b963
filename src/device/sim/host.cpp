#include "device/sim/host.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "device/input_file.hpp"
#include "device/sim/json_reader.hpp"
#include "device/sim/presets.hpp"
#include "device/sim/rng.hpp"
#include "device/sim/sim_device.hpp"
#include "model/json_input.hpp"

namespace gputopo::device::sim {
namespace {

constexpr std::uint64_t kMaxHostConfigBytes = 1 << 20;
constexpr int kMaxGpus = 64;

SimHostLink parse_host_link(const JsonReader& r) {
  r.only({"pinnedH2dGBps", "pinnedD2hGBps", "pageableH2dGBps", "pageableD2hGBps", "latencyUs",
          "remoteNumaFactor"});
  SimHostLink l;
  l.pinned_h2d_gbps = r.at("pinnedH2dGBps").number(0.01, 1e5);
  l.pinned_d2h_gbps = r.at("pinnedD2hGBps").number(0.01, 1e5);
  l.pageable_h2d_gbps = r.at("pageableH2dGBps").number(0.01, 1e5);
  l.pageable_d2h_gbps = r.at("pageableD2hGBps").number(0.01, 1e5);
  l.latency_us = r.at("latencyUs").number(0.01, 1e6);
  l.remote_numa_factor = r.number("remoteNumaFactor", 0.01, 1, 1);
  return l;
}

SimPeerLinkType parse_link_type(const JsonReader& r) {
  r.only({"type", "count", "generation", "GBps", "bidirGBps", "latencyUs", "loadLatencyNs",
          "access", "atomics", "rank"});
  SimPeerLinkType t;
  t.link.type = r.at("type").string();
  if (t.link.type != "NVLink" && t.link.type != "PCIe") r.at("type").fail("NVLink or PCIe");
  if (t.link.type == "NVLink") {
    t.link.nvlink_count = static_cast<int>(r.at("count").integer(1, 64));
    t.link.nvlink_generation = static_cast<int>(r.at("generation").integer(1, 9));
  }
  t.gbps = r.at("GBps").number(0.01, 1e5);
  t.bidir_gbps = r.at("bidirGBps").number(0.01, 2e5);
  t.latency_us = r.at("latencyUs").number(0.01, 1e6);
  t.load_latency_ns = r.number("loadLatencyNs", 1, 1e6, 0);
  t.link.access = r.boolean("access", true);
  t.link.atomics = r.boolean("atomics", t.link.access);
  t.link.performance_rank = static_cast<int>(r.integer("rank", 0, 16, 0));
  return t;
}

void parse_links(const JsonReader& r, SimHostConfig& c) {
  const std::size_t n = c.gpus.size();
  if (r.size() != n) r.fail(fmt::format("must have {} rows, one per GPU", n));
  for (std::size_t i = 0; i < n; ++i) {
    const JsonReader row = r.at(i);
    if (row.size() != n) row.fail(fmt::format("must have {} entries, one per GPU", n));
    c.links.emplace_back();
    for (std::size_t j = 0; j < n; ++j) {
      const std::string name = row.at(j).string();
      if (i == j && !name.empty()) row.at(j).fail("the diagonal is \"\"");
      if (i != j && !c.link_types.contains(name)) row.at(j).fail("not a link type: " + name);
      c.links.back().push_back(name);
    }
  }
}

SimHostConfig parse_host_config(const std::string& text, const std::string& origin) {
  model::Json json;
  try {
    json = model::parse_json_input(text);
  } catch (const std::runtime_error& e) {
    throw Error(Error::Kind::BadRequest, origin + ": " + e.what());
  }
  const JsonReader r(json, origin, "");
  r.only(
      {"description", "sources", "gpus", "numaNodes", "hostLink", "linkTypes", "links", "noise"});
  SimHostConfig c;
  c.origin = origin;
  c.noise = r.number("noise", 0, 0.5, 0.01);
  const JsonReader nodes = r.at("numaNodes");
  for (std::size_t i = 0; i < nodes.size(); ++i)
    c.numa_nodes.push_back(static_cast<int>(nodes.at(i).integer(0, 1023)));
  if (c.numa_nodes.empty()) nodes.fail("must name at least one node");
  const SimHostLink host_link = parse_host_link(r.at("hostLink"));
  const JsonReader gpus = r.at("gpus");
  if (gpus.size() < 1 || gpus.size() > kMaxGpus)
    gpus.fail(fmt::format("must hold 1 to {} GPUs", kMaxGpus));
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const JsonReader g = gpus.at(i);
    g.only({"preset", "numaNode", "hostLink", "fails"});
    SimHostGpu gpu;
    gpu.preset = g.at("preset").string();
    gpu.numa_node = static_cast<int>(g.at("numaNode").integer(0, 1023));
    if (std::find(c.numa_nodes.begin(), c.numa_nodes.end(), gpu.numa_node) == c.numa_nodes.end())
      g.at("numaNode").fail("not one of numaNodes");
    gpu.host_link = g.has("hostLink") ? parse_host_link(g.at("hostLink")) : host_link;
    gpu.fails = g.boolean("fails", false);
    c.gpus.push_back(gpu);
  }
  const JsonReader types = r.at("linkTypes");
  if (!types.json().is_object()) types.fail("must be an object");
  for (const auto& [name, value] : types.json().items()) {
    if (name.empty()) types.fail("a link type needs a name");
    c.link_types[name] = parse_link_type(types.at(name));
  }
  parse_links(r.at("links"), c);
  return c;
}

// A GPU of a simulated host: the simulated GPU of its preset, plus its links.
class HostGpu final : public Device {
 public:
  HostGpu(std::unique_ptr<Device> inner, std::shared_ptr<const SimHostConfig> host, int index,
          std::uint64_t seed)
      : inner_(std::move(inner)),
        keep_(std::move(host)),
        host_(*keep_),
        index_(index),
        info_(inner_->info()),
        rng_(mix64(seed, 0x6c696e6b73ULL + static_cast<std::uint64_t>(index))) {
    info_.index = index;
  }

  const DeviceInfo& info() const override { return info_; }
  ChaseBatchResult chase(const ChaseBatch& b) override { return check(), inner_->chase(b); }
  ChaseBatchResult interfere(const InterferenceBatch& b) override {
    return check(), inner_->interfere(b);
  }
  StreamResult stream(const StreamRequest& r) override { return check(), inner_->stream(r); }
  ReadRateResult read_rate(const ReadRateRequest& r) override {
    return check(), inner_->read_rate(r);
  }
  ReductionResult reductions(const ReductionRequest& r) override {
    return check(), inner_->reductions(r);
  }
  std::vector<std::vector<int>> co_resident_sms(int size) override {
    return check(), inner_->co_resident_sms(size);
  }
  ComputeBatchResult compute(const ComputeBatch& b) override { return check(), inner_->compute(b); }
  DeviceState state() override { return inner_->state(); }
  void begin_phase(std::string_view name) override { inner_->begin_phase(name); }

  PeerLink peer_link(int peer) override { return type_to(peer).link; }

  TransferResult transfer(const TransferRequest& r) override {
    check();
    if (r.bytes == 0 || r.repeats < 1)
      throw Error(Error::Kind::BadRequest, "a transfer needs bytes and repeats");
    double gbps = 0, latency_us = 0;
    TransferResult result;
    if (r.kind == TransferKind::HostToDevice || r.kind == TransferKind::DeviceToHost) {
      const SimHostGpu& gpu = host_.gpus[static_cast<std::size_t>(index_)];
      const SimHostLink& l = gpu.host_link;
      const bool h2d = r.kind == TransferKind::HostToDevice;
      gbps = r.memory == HostMemory::Pinned ? (h2d ? l.pinned_h2d_gbps : l.pinned_d2h_gbps)
                                            : (h2d ? l.pageable_h2d_gbps : l.pageable_d2h_gbps);
      latency_us = l.latency_us;
      if (r.numa_node >= 0) {
        if (std::find(host_.numa_nodes.begin(), host_.numa_nodes.end(), r.numa_node) ==
            host_.numa_nodes.end()) {
          result.numa_reason = fmt::format("the host has no NUMA node {}", r.numa_node);
        } else {
          result.numa_bound = true;
          if (r.numa_node != gpu.numa_node) gbps *= l.remote_numa_factor;
        }
      }
    } else {
      const SimPeerLinkType& t = type_to(r.peer);
      if (!t.link.access)
        throw Error(Error::Kind::BadRequest,
                    fmt::format("GPU {} has no peer access to GPU {}", index_, r.peer));
      if (r.kind == TransferKind::PeerLoad) return peer_load(t, r);
      gbps = r.kind == TransferKind::PeerBidirectional ? t.bidir_gbps / 2 : t.gbps;
      latency_us = t.latency_us;
    }
    for (int i = 0; i < r.repeats; ++i) {
      const double ideal = latency_us * 1e-6 + static_cast<double>(r.bytes) / (gbps * 1e9);
      result.seconds.push_back(ideal * std::max(0.5, 1 + host_.noise * rng_.normal()));
    }
    return result;
  }

 private:
  TransferResult peer_load(const SimPeerLinkType& t, const TransferRequest& r) {
    if (t.load_latency_ns == 0)
      throw Error(Error::Kind::Unsupported,
                  "the simulated host's link type models no load latency (loadLatencyNs)");
    TransferResult result;
    for (int i = 0; i < r.repeats; ++i)
      result.seconds.push_back(t.load_latency_ns * 1e-9 *
                               std::max(0.5, 1 + host_.noise * rng_.normal()));
    return result;
  }

  void check() const {
    if (host_.gpus[static_cast<std::size_t>(index_)].fails)
      throw Error(Error::Kind::Lost,
                  fmt::format("simulated GPU {} fell off the bus (the host configuration says "
                              "it fails)",
                              index_));
  }

  const SimPeerLinkType& type_to(int peer) const {
    if (peer < 0 || peer >= static_cast<int>(host_.gpus.size()) || peer == index_)
      throw Error(Error::Kind::BadRequest,
                  fmt::format("GPU {} is not a peer of GPU {}", peer, index_));
    return host_.link_types.at(
        host_.links[static_cast<std::size_t>(index_)][static_cast<std::size_t>(peer)]);
  }

  std::unique_ptr<Device> inner_;
  std::shared_ptr<const SimHostConfig> keep_;
  const SimHostConfig& host_;
  int index_;
  DeviceInfo info_;
  Rng rng_;
};

}  // namespace

std::vector<std::string> host_preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : embedded_host_presets()) names.emplace_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

bool is_host_preset(const std::string& name) {
  const auto names = host_preset_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

SimHostConfig load_host_config(const std::string& preset_or_file) {
  for (const auto& [name, text] : embedded_host_presets())
    if (name == preset_or_file)
      return parse_host_config(std::string(text), fmt::format("host preset {}", name));
  std::error_code ec;
  if (!std::filesystem::exists(preset_or_file, ec))
    throw Error(Error::Kind::BadRequest, preset_or_file + ": not a readable file");
  try {
    return parse_host_config(read_input_file(preset_or_file, kMaxHostConfigBytes), preset_or_file);
  } catch (const Error&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw Error(Error::Kind::BadRequest, preset_or_file + ": " + e.what());
  }
}

SimHost open_host(const SimHostConfig& config, std::uint64_t seed) {
  SimHost host;
  host.numa_nodes = config.numa_nodes;
  const auto shared = std::make_shared<const SimHostConfig>(config);
  for (std::size_t i = 0; i < config.gpus.size(); ++i) {
    const int index = static_cast<int>(i);
    host.gpus.push_back(std::make_unique<HostGpu>(open(config.gpus[i].preset, mix64(seed, i)),
                                                  shared, index, seed));
  }
  return host;
}

}  // namespace gputopo::device::sim
