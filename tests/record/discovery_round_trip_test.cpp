#include <gtest/gtest.h>

#include <string>

#include "device/record/recording.hpp"
#include "device/record/replay.hpp"
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

TEST_P(DiscoveryRoundTrip, DiscoveryOnTheRecordingFindsWhatItFoundLive) {
  discovery::Options options;
  discovery::NullProgress progress;
  discovery::Result live;
  {
    auto recorder = record_to(sim::open(GetParam()), dir_);
    live = discovery::discover(*recorder, options, progress);
  }
  ASSERT_FALSE(live.memory.empty());
  auto replay = open_replay(dir_);
  discovery::Result again = discovery::discover(*replay, options, progress);
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

}  // namespace
}  // namespace gputopo::device::record
