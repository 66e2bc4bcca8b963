#include "device/sim/host.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

// The simulated hosts: presets, the link matrix, the copies' times, bad configurations.
namespace gputopo::device::sim {
namespace {

TEST(SimHost, PresetsLoadWithTheirGpuCounts) {
  EXPECT_EQ(host_preset_names(), (std::vector<std::string>{"dgx-h100", "h100-x1", "hgx-a100-4"}));
  EXPECT_EQ(load_host_config("dgx-h100").gpus.size(), 8u);
  EXPECT_EQ(load_host_config("hgx-a100-4").gpus.size(), 4u);
  EXPECT_EQ(load_host_config("h100-x1").gpus.size(), 1u);
}

TEST(SimHost, GpusAreIndexedAndKnowTheirPeers) {
  SimHost host = open_host(load_host_config("hgx-a100-4"));
  ASSERT_EQ(host.gpus.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(host.gpus[static_cast<std::size_t>(i)]->info().index, i);
    for (int j = 0; j < 4; ++j) {
      if (i == j) {
        EXPECT_THROW(host.gpus[static_cast<std::size_t>(i)]->peer_link(j), Error);
        continue;
      }
      const PeerLink l = host.gpus[static_cast<std::size_t>(i)]->peer_link(j);
      EXPECT_EQ(l.type, "NVLink");
      EXPECT_EQ(l.nvlink_count, 4);
      EXPECT_EQ(l.nvlink_generation, 3);
      EXPECT_TRUE(l.access);
    }
  }
}

TEST(SimHost, CopyTimesFollowTheConfiguredBandwidth) {
  const SimHostConfig config = load_host_config("dgx-h100");
  SimHost host = open_host(config);
  TransferRequest r;
  r.kind = TransferKind::PeerRead;
  r.peer = 5;
  r.bytes = 1ull << 30;
  r.repeats = 3;
  for (double s : host.gpus[0]->transfer(r).seconds)
    EXPECT_NEAR(static_cast<double>(r.bytes) / s / 1e9, 370, 370 * 0.05);
  r = {};
  r.kind = TransferKind::HostToDevice;
  r.bytes = 1ull << 30;
  r.numa_node = 1;  // GPU 0 sits on node 0: the remote factor applies
  const TransferResult t = host.gpus[0]->transfer(r);
  EXPECT_TRUE(t.numa_bound);
  EXPECT_NEAR(static_cast<double>(r.bytes) / t.seconds[0] / 1e9, 55 * 0.8, 55 * 0.8 * 0.05);
}

TEST(SimHost, SameSeedSameCopies) {
  TransferRequest r;
  r.bytes = 1 << 20;
  r.repeats = 4;
  EXPECT_EQ(open_host(load_host_config("h100-x1"), 7).gpus[0]->transfer(r).seconds,
            open_host(load_host_config("h100-x1"), 7).gpus[0]->transfer(r).seconds);
}

std::string write_config(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::path(::testing::TempDir()) / name;
  std::ofstream(path) << text;
  return path.string();
}

constexpr const char* kTwo = R"({
  "numaNodes": [0],
  "hostLink": {"pinnedH2dGBps": 20, "pinnedD2hGBps": 20, "pageableH2dGBps": 8,
               "pageableD2hGBps": 8, "latencyUs": 3},
  "gpus": [{"preset": "toy", "numaNode": 0}, {"preset": "toy", "numaNode": 0, "fails": true}],
  "linkTypes": {"pcie": {"type": "PCIe", "GBps": 20, "bidirGBps": 30, "latencyUs": 5}},
  "links": [["", "pcie"], ["pcie", ""]]
})";

TEST(SimHost, AFailingGpuFailsEveryMeasurementAndOnlyIt) {
  SimHost host = open_host(load_host_config(write_config("two.json", kTwo)));
  TransferRequest r;
  r.bytes = 1 << 20;
  EXPECT_NO_THROW(host.gpus[0]->transfer(r));
  try {
    host.gpus[1]->transfer(r);
    FAIL() << "GPU 1 should fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::Lost);
  }
  EXPECT_EQ(host.gpus[0]->peer_link(1).type, "PCIe");
}

TEST(SimHost, BadConfigurationsNameTheField) {
  std::string bad = kTwo;
  bad.replace(bad.find("[\"pcie\", \"\"]"), 12, "[\"pcie\", \"x\"]");
  try {
    load_host_config(write_config("bad.json", bad));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
    EXPECT_NE(std::string(e.what()).find("links[1][1]"), std::string::npos) << e.what();
  }
  std::string node = kTwo;
  node.replace(node.find("\"numaNode\": 0,"), 14, "\"numaNode\": 3,");
  EXPECT_THROW(load_host_config(write_config("node.json", node)), Error);
  EXPECT_THROW(load_host_config("no-such-host"), Error);
}

}  // namespace
}  // namespace gputopo::device::sim
