#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "device/record/recording.hpp"
#include "device/record/replay.hpp"
#include "device/sim/config.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"
#include "test_recordings.hpp"

// What `gputopo analyze DIR` relies on: discovery re-run on a recording of the simulated GPU
// makes the same requests and reaches the same findings.
namespace gputopo::device::record {
namespace {

class DiscoveryRoundTrip : public testing::TempDirTest,
                           public ::testing::WithParamInterface<std::string> {};

model::Json findings(const discovery::Result& r) {
  model::Json j = model::Json::object();
  for (const auto& e : r.memory) j[e.key] = model::to_json(e.attributes);
  j["compute"] = model::to_json(r.compute);
  j["failed"] = r.failed;
  j["completed"] = r.completed;
  return j;
}

// Discovery on `device` live through a recorder into `dir`, then on the replay of the recording.
std::pair<discovery::Result, discovery::Result> live_and_again(std::unique_ptr<Device> device,
                                                               const discovery::Options& options,
                                                               const std::filesystem::path& dir) {
  discovery::NullProgress progress;
  discovery::Result live;
  {
    auto recorder = record_to(std::move(device), dir);
    live = discovery::discover(*recorder, options, progress);
  }
  auto replay = open_replay(dir);
  return {std::move(live), discovery::discover(*replay, options, progress)};
}

TEST_P(DiscoveryRoundTrip, DiscoveryOnTheRecordingFindsWhatItFoundLive) {
  const auto [live, again] = live_and_again(sim::open(GetParam()), {}, dir_);
  ASSERT_FALSE(live.memory.empty());
  EXPECT_EQ(findings(again), findings(live));
  EXPECT_EQ(again.warnings, live.warnings);
  ASSERT_EQ(again.timings.size(), live.timings.size());
  for (std::size_t i = 0; i < live.timings.size(); ++i) {
    EXPECT_EQ(again.timings[i].probe, live.timings[i].probe);
    EXPECT_EQ(again.timings[i].status, live.timings[i].status) << live.timings[i].probe;
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, DiscoveryRoundTrip,
                         ::testing::Values("toy", "odd-2xl1", "h100-sxm"), [](const auto& p) {
                           std::string name = p.param;
                           std::erase(name, '-');
                           return name;
                         });

// The L2 slices' reductions and the GPC ports' read rates are recorded too: their probes find
// offline what they found live.
TEST_F(DiscoveryRoundTrip, SlicesAndPortsFindOnTheRecordingWhatTheyFoundLive) {
  discovery::Options slices;
  slices.only = {"l2.slices"};
  slices.depth = discovery::Depth::Full;
  const auto [live, again] =
      live_and_again(sim::open(SIM_TEST_DATA "/toy-slices.json"), slices, dir_);
  ASSERT_EQ(live.memory.size(), 1u);
  const auto* count = model::find(live.memory[0].attributes, "sliceCount");
  ASSERT_TRUE(count && count->available());
  EXPECT_EQ(findings(again), findings(live));

  sim::SimConfig ports = sim::load_config("h200");
  ports.bandwidth.gpc_port_gbps = 1250;
  ports.bandwidth.sm_l2_read_gbps = 220;
  discovery::Options layout;
  layout.only = {"layout"};
  layout.depth = discovery::Depth::Full;
  const auto [live_layout, again_layout] =
      live_and_again(sim::make_device(std::move(ports)), layout, dir_ / "ports");
  const auto* gpcs = model::find(live_layout.compute, "gpcCount");
  ASSERT_TRUE(gpcs && gpcs->evidence.contains("portPlacement"));
  EXPECT_EQ(findings(again_layout), findings(live_layout));
}

}  // namespace
}  // namespace gputopo::device::record
