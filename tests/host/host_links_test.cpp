#include "host/host_links.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "device/sim/host.hpp"

// The peer matrix and the host links measured on the simulated hosts, against their configuration.
namespace gputopo::host {
namespace {

using model::Json;

struct Measured {
  device::sim::SimHost sim;
  Json links;
};

Measured measure(const device::sim::SimHostConfig& config) {
  Measured m{device::sim::open_host(config), {}};
  std::vector<LinkedGpu> gpus;
  for (std::size_t i = 0; i < m.sim.gpus.size(); ++i)
    gpus.push_back({m.sim.gpus[i].get(), "", config.gpus[i].numa_node});
  m.links = measure_links(gpus, {m.sim.numa_nodes, ""});
  return m;
}

double value(const Json& v) { return v.at("value").get<double>(); }

TEST(HostLinks, EightGpuHostGivesTheFullMatrixAtTheConfiguredBandwidths) {
  const auto config = device::sim::load_host_config("dgx-h100");
  const Json links = measure(config).links;
  ASSERT_EQ(links["peers"].size(), 8u * 7u);
  for (const auto& p : links["peers"]) {
    EXPECT_NE(p["from"], p["to"]);
    EXPECT_EQ(p["link"]["type"], "NVLink");
    EXPECT_EQ(p["link"]["count"], 18);
    EXPECT_EQ(p["link"]["generation"], 4);
    EXPECT_TRUE(p["access"].get<bool>());
    EXPECT_TRUE(p["atomics"].get<bool>());
    EXPECT_NEAR(value(p["readGBps"]), 370, 370 * 0.05);
    EXPECT_NEAR(value(p["writeGBps"]), 370, 370 * 0.05);
    EXPECT_NEAR(value(p["bidirectionalGBps"]), 740, 740 * 0.05);
    EXPECT_GT(value(p["latencyUs"]), 2.5 * 0.9);
    EXPECT_NEAR(value(p["loadLatencyNs"]), 850, 850 * 0.05);
    EXPECT_EQ(p["loadLatencyNs"]["unit"], "ns");
  }
  ASSERT_EQ(links["hostLinks"].size(), 8u);
  for (const auto& h : links["hostLinks"]) {
    EXPECT_NEAR(value(h["pinnedH2dGBps"]), 55, 55 * 0.05);
    EXPECT_NEAR(value(h["pageableD2hGBps"]), 17, 17 * 0.05);
    EXPECT_TRUE(h["numa"]["dependsOnNode"].get<bool>()) << h["numa"].dump();
    EXPECT_EQ(h["numa"]["perNode"].size(), 2u);
  }
  EXPECT_TRUE(links["outliers"].empty()) << links["outliers"].dump();
}

TEST(HostLinks, FourGpuHostWithOneNumaNodeSaysWhyNumaIsNotEstablished) {
  const Json links = measure(device::sim::load_host_config("hgx-a100-4")).links;
  ASSERT_EQ(links["peers"].size(), 12u);
  for (const auto& p : links["peers"]) {
    EXPECT_EQ(p["link"]["count"], 4);
    EXPECT_EQ(p["link"]["generation"], 3);
    EXPECT_NEAR(value(p["readGBps"]), 92, 92 * 0.05);
  }
  for (const auto& h : links["hostLinks"])
    EXPECT_NE(h["numa"]["notEstablished"].get<std::string>().find("one NUMA node"),
              std::string::npos);
  EXPECT_TRUE(links["outliers"].empty());
}

TEST(HostLinks, OneGpuHasAnEmptyPeerMatrixAndItsHostLink) {
  const Json links = measure(device::sim::load_host_config("h100-x1")).links;
  EXPECT_TRUE(links["peers"].empty());
  ASSERT_EQ(links["hostLinks"].size(), 1u);
  EXPECT_NEAR(value(links["hostLinks"][0]["latencyUs"]), 2.0, 0.2);
}

TEST(HostLinks, ALinkWithoutALoadLatencySaysSo) {
  auto config = device::sim::load_host_config("hgx-a100-4");
  config.link_types.at("nv4").load_latency_ns = 0;
  const Json links = measure(config).links;
  for (const auto& p : links["peers"]) {
    EXPECT_TRUE(p["loadLatencyNs"]["value"].is_null());
    EXPECT_NE(p["loadLatencyNs"]["reason"].get<std::string>().find("loadLatencyNs"),
              std::string::npos);
    EXPECT_NEAR(value(p["readGBps"]), 92, 92 * 0.05);
  }
}

TEST(HostLinks, ASlowPairIsAnOutlier) {
  auto config = device::sim::load_host_config("hgx-a100-4");
  auto slow = config.link_types.at("nv4");
  slow.gbps /= 2;
  config.link_types["slow"] = slow;
  config.links[1][2] = "slow";
  const Json links = measure(config).links;
  ASSERT_EQ(links["outliers"].size(), 1u) << links["outliers"].dump();
  EXPECT_EQ(links["outliers"][0]["what"], "peer read 1 -> 2");
}

TEST(HostLinks, AFailedGpuLeavesItsEntriesNotEstablishedAndTheOthersMeasured) {
  auto config = device::sim::load_host_config("hgx-a100-4");
  config.gpus[2].fails = true;
  const Json links = measure(config).links;
  for (const auto& p : links["peers"]) {
    const bool touches = p["from"] == 2 || p["to"] == 2;
    // GPU 2 is lost at its first host copy, before any pair is measured.
    EXPECT_EQ(touches, p.contains("notEstablished")) << p.dump();
    if (!touches) {
      EXPECT_FALSE(p["readGBps"]["value"].is_null()) << p.dump();
    }
  }
  EXPECT_TRUE(links["hostLinks"][2]["pinnedH2dGBps"]["value"].is_null());
  EXPECT_FALSE(links["hostLinks"][0]["pinnedH2dGBps"]["value"].is_null());
}

}  // namespace
}  // namespace gputopo::host
