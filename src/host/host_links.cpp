#include "host/host_links.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "model/attribute.hpp"
#include "model/seconds_since.hpp"

namespace gputopo::host {
namespace {

using device::HostMemory;
using device::TransferKind;
using model::Json;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Json not_established(const std::string& why) { return {{"notEstablished", why}}; }

// A measured link value as an attribute (docs/schema.md): the median of the copies, their range as
// the interval, and a confidence of 1 - (range / median), floored at 0.
Json measured(const std::vector<double>& values, const char* unit, const std::string& method) {
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const double m = median(values);
  model::Attribute a =
      model::Attribute::measured(m, unit, method, std::max(0.0, 1 - (*hi - *lo) / m));
  a.interval = model::Interval{*lo, *hi};
  a.samples = static_cast<int>(values.size());
  return model::to_json(a);
}

Json unmeasured(const char* unit, const std::string& why) {
  return model::to_json(model::Attribute::unavailable(model::Source::Measured, unit, why));
}

bool has_value(const Json& attribute) { return !attribute.at("value").is_null(); }

class Meter {
 public:
  Meter(LinkedGpu& gpu, const LinkOptions& o) : gpu_(gpu), o_(o) {}

  // Bandwidth in GB/s of `request` (its bytes and repeats set here), `directions` copies of
  // `bytes` each per timed interval.
  Json bandwidth(device::TransferRequest r, int directions, const std::string& method) {
    if (r.bytes == 0) r.bytes = o_.bytes;
    r.repeats = o_.repeats;
    return run(r, "GB/s", [&](const device::TransferResult& t) {
      std::vector<double> gbps;
      for (double s : t.seconds)
        gbps.push_back(static_cast<double>(directions) * static_cast<double>(r.bytes) / s / 1e9);
      return measured(gbps, "GB/s", method);
    });
  }

  Json latency(device::TransferRequest r, const std::string& method) {
    r.bytes = o_.latency_bytes;
    r.repeats = o_.latency_repeats;
    return scaled(r, "us", 1e6, method);
  }

  Json load_latency(device::TransferRequest r, const std::string& method) {
    r.bytes = o_.load_bytes;
    r.repeats = o_.load_repeats;
    return scaled(r, "ns", 1e9, method);
  }

  Json scaled(const device::TransferRequest& r, const char* unit, double scale,
              const std::string& method) {
    return run(r, unit, [&](const device::TransferResult& t) {
      std::vector<double> v;
      for (double s : t.seconds) v.push_back(s * scale);
      return measured(v, unit, method);
    });
  }

  template <class Make>
  Json run(const device::TransferRequest& r, const char* unit, Make&& make) {
    if (!gpu_.device) return unmeasured(unit, gpu_.why);
    try {
      last_ = gpu_.device->transfer(r);
      if (last_.seconds.empty()) return unmeasured(unit, "the device returned no samples");
      return make(last_);
    } catch (const device::Error& e) {
      if (e.kind() == device::Error::Kind::Lost) {
        gpu_.why = fmt::format("GPU {} was lost: {}", gpu_.device->info().index, e.what());
        gpu_.device = nullptr;
      }
      return unmeasured(unit, e.what());
    }
  }

  const device::TransferResult& last() const { return last_; }

 private:
  LinkedGpu& gpu_;
  const LinkOptions& o_;
  device::TransferResult last_;
};

// Whether the pinned host-to-device bandwidth depends on the NUMA node the buffer is bound to.
Json numa_dependence(Meter& meter, const HostNuma& numa) {
  if (numa.nodes.empty()) return not_established(numa.why);
  if (numa.nodes.size() == 1)
    return not_established("the host has one NUMA node: there is nothing to compare");
  Json per_node = Json::array();
  double slowest = 0, fastest = 0, spread = 0;
  for (int node : numa.nodes) {
    device::TransferRequest r;
    r.numa_node = node;
    Json v = meter.bandwidth(r, 1, "pinned host-to-device copies, buffer bound to the node");
    if (!has_value(v)) return not_established(v["reason"].get<std::string>());
    if (!meter.last().numa_bound) return not_established(meter.last().numa_reason);
    const double m = v["value"].get<double>();
    slowest = slowest == 0 ? m : std::min(slowest, m);
    fastest = std::max(fastest, m);
    spread =
        std::max(spread, (v["interval"][1].get<double>() - v["interval"][0].get<double>()) / m);
    per_node.push_back({{"node", node}, {"pinnedH2dGBps", v}});
  }
  // Dependent when the nodes' medians differ by more than 5 % and by more than the samples of
  // one node spread.
  const double threshold = std::max(0.05, spread);
  const double difference = (fastest - slowest) / fastest;
  return {{"perNode", per_node},
          {"dependsOnNode", difference > threshold},
          {"difference", difference},
          {"threshold", threshold},
          {"method",
           "medians of each node's copies differ by more than max(5 %, the largest "
           "relative range of one node's samples)"}};
}

Json host_link(LinkedGpu& gpu, const HostNuma& numa, const LinkOptions& o) {
  Meter meter(gpu, o);
  const auto req = [](TransferKind k, HostMemory m) {
    device::TransferRequest r;
    r.kind = k;
    r.memory = m;
    return r;
  };
  const std::string event = "cudaMemcpyAsync, event-timed";
  const std::string wall = "cudaMemcpyAsync and its completion, host-timed";
  Json j;
  j["gpu"] = gpu.device ? gpu.device->info().index : -1;
  j["numaNode"] = gpu.numa_node >= 0 ? Json(gpu.numa_node) : Json(nullptr);
  j["pinnedH2dGBps"] =
      meter.bandwidth(req(TransferKind::HostToDevice, HostMemory::Pinned), 1, event);
  j["pinnedD2hGBps"] =
      meter.bandwidth(req(TransferKind::DeviceToHost, HostMemory::Pinned), 1, event);
  j["pageableH2dGBps"] =
      meter.bandwidth(req(TransferKind::HostToDevice, HostMemory::Pageable), 1, wall);
  j["pageableD2hGBps"] =
      meter.bandwidth(req(TransferKind::DeviceToHost, HostMemory::Pageable), 1, wall);
  j["latencyUs"] =
      meter.latency(req(TransferKind::HostToDevice, HostMemory::Pinned),
                    fmt::format("{} B pinned host-to-device copies, event-timed", o.latency_bytes));
  j["numa"] = numa_dependence(meter, numa);
  return j;
}

Json peer_entry(LinkedGpu& from, LinkedGpu& to, int from_index, int to_index,
                const LinkOptions& o) {
  Json j = {{"from", from_index}, {"to", to_index}};
  if (!from.device || !to.device) {
    j["notEstablished"] = !from.device ? from.why : to.why;
    return j;
  }
  device::PeerLink link;
  try {
    link = from.device->peer_link(to_index);
  } catch (const device::Error& e) {
    j["notEstablished"] = e.what();
    return j;
  }
  j["access"] = link.access;
  j["atomics"] = link.atomics;
  j["performanceRank"] = link.performance_rank;
  if (link.type.empty())
    j["link"] = not_established(link.nvlink_reason);
  else if (link.type == "NVLink")
    j["link"] = {{"type", "NVLink"},
                 {"count", link.nvlink_count},
                 {"generation", link.nvlink_generation ? Json(link.nvlink_generation) : Json()}};
  else
    j["link"] = {{"type", link.type}};
  const std::string no_access = "no peer access between the two GPUs";
  Meter meter(from, o);
  const auto req = [&](TransferKind k) {
    device::TransferRequest r;
    r.kind = k;
    r.peer = to_index;
    r.bytes = o.peer_bytes;
    return r;
  };
  const std::string method = "cudaMemcpyPeerAsync, event-timed";
  j["readGBps"] = link.access ? meter.bandwidth(req(TransferKind::PeerRead), 1, method)
                              : unmeasured("GB/s", no_access);
  j["writeGBps"] = link.access ? meter.bandwidth(req(TransferKind::PeerWrite), 1, method)
                               : unmeasured("GB/s", no_access);
  j["bidirectionalGBps"] =
      link.access ? meter.bandwidth(
                        req(TransferKind::PeerBidirectional), 2,
                        method + ": each GPU pushes to the other at once, both directions summed")
                  : unmeasured("GB/s", no_access);
  j["latencyUs"] =
      link.access ? meter.latency(req(TransferKind::PeerRead),
                                  fmt::format("{} B peer copies, event-timed", o.latency_bytes))
                  : unmeasured("us", no_access);
  j["loadLatencyNs"] =
      link.access
          ? meter.load_latency(req(TransferKind::PeerLoad),
                               fmt::format("dependent loads (ld.global.cg) by one thread through "
                                           "a chain of {} MiB in the peer's memory at a 4 KiB "
                                           "stride in a random order, event-timed per chain",
                                           o.load_bytes >> 20))
          : unmeasured("ns", no_access);
  return j;
}

// Pairs whose read bandwidth is off the median of the pairs with the same link by more than
// `fraction`, and GPUs whose pinned host bandwidth is off the median of all by as much.
Json outliers(const Json& peers, const Json& hosts, double fraction) {
  Json list = Json::array();
  std::map<std::string, std::vector<double>> groups;
  const auto key = [](const Json& p) { return p.contains("link") ? p["link"].dump() : ""; };
  for (const auto& p : peers)
    if (p.contains("readGBps") && has_value(p["readGBps"]))
      groups[key(p)].push_back(p["readGBps"]["value"].get<double>());
  for (const auto& p : peers) {
    if (!p.contains("readGBps") || !has_value(p["readGBps"])) continue;
    const double m = median(groups[key(p)]), v = p["readGBps"]["value"].get<double>();
    if (std::abs(v - m) > fraction * m)
      list.push_back(
          {{"what", fmt::format("peer read {} -> {}", p["from"].get<int>(), p["to"].get<int>())},
           {"GBps", v},
           {"groupMedianGBps", m}});
  }
  std::vector<double> host;
  for (const auto& h : hosts)
    if (has_value(h["pinnedH2dGBps"])) host.push_back(h["pinnedH2dGBps"]["value"].get<double>());
  for (const auto& h : hosts) {
    if (!has_value(h["pinnedH2dGBps"])) continue;
    const double m = median(host), v = h["pinnedH2dGBps"]["value"].get<double>();
    if (std::abs(v - m) > fraction * m)
      list.push_back({{"what", fmt::format("pinned host-to-device of GPU {}", h["gpu"].get<int>())},
                      {"GBps", v},
                      {"groupMedianGBps", m}});
  }
  return list;
}

}  // namespace

Json measure_links(std::vector<LinkedGpu>& gpus, const HostNuma& numa, const LinkOptions& o) {
  // What each entry took to measure, allocations and peer enabling included.
  const auto timed = [](auto&& measure) {
    const auto started = std::chrono::steady_clock::now();
    Json entry = measure();
    entry["seconds"] = model::seconds_since(started);
    return entry;
  };
  Json hosts = Json::array();
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    Json h = timed([&] { return host_link(gpus[i], numa, o); });
    h["gpu"] = static_cast<int>(i);
    hosts.push_back(std::move(h));
  }
  Json peers = Json::array();
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = 0; j < gpus.size(); ++j)
      if (i != j)
        peers.push_back(timed([&] {
          return peer_entry(gpus[i], gpus[j], static_cast<int>(i), static_cast<int>(j), o);
        }));
  Json out;
  out["outliers"] = outliers(peers, hosts, o.outlier_fraction);
  out["hostLinks"] = std::move(hosts);
  out["peers"] = std::move(peers);
  return out;
}

}  // namespace gputopo::host
