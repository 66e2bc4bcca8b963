#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../record/test_recordings.hpp"
#include "device/record/recording.hpp"
#include "device/record/replay.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"

// Compute calls are recorded and replayed like chases and streams, and the pipeline probe gives
// the same table from a replay as from the live run.
namespace gputopo::device::record {
namespace {

using ComputeRoundTrip = testing::TempDirTest;

ComputeBatch batch() {
  ComputeBatch b;
  b.requests.push_back({ComputeOp::FFma32, 256, 1, 1, 1, std::nullopt});
  b.requests.push_back({ComputeOp::AtomSharedOne, 64, 8, 32, 3, std::nullopt});
  b.requests.push_back({ComputeOp::LdShared64, 64, 1, 1, 1, 24});
  b.requests.push_back({ComputeOp::CodeBody, 128, 1, 1, 1, 64, 4096});
  return b;
}

TEST_F(ComputeRoundTrip, ReplayAnswersEveryComputeCallExactly) {
  ComputeBatchResult live;
  {
    auto recorder = record_to(sim::open("h100-sxm"), dir_);
    live = recorder->compute(batch());
    recorder->finish();
  }
  auto replay = open_replay(dir_);
  const ComputeBatchResult again = replay->compute(batch());
  ASSERT_EQ(again.results.size(), live.results.size());
  for (std::size_t i = 0; i < live.results.size(); ++i) {
    EXPECT_EQ(again.results[i].cycles, live.results[i].cycles);
    EXPECT_EQ(again.results[i].sms, live.results[i].sms);
  }
  EXPECT_EQ(again.results[1].cycles.size(), 3u);
  EXPECT_EQ(again.conditions.elapsed_ns, live.conditions.elapsed_ns);
  ComputeBatch other = batch();
  other.requests[0].ilp = 2;
  EXPECT_THROW(replay->compute(other), Error);
  ComputeBatch stride = batch();
  stride.requests[2].arg = 32;  // the op's argument is part of the call's identity
  EXPECT_THROW(replay->compute(stride), Error);
  ComputeBatch chase = batch();
  chase.requests[3].data_bytes = 8192;  // and so is the code body's constant chase
  EXPECT_THROW(replay->compute(chase), Error);
}

TEST_F(ComputeRoundTrip, RecordedRefusalsAreRaisedAgain) {
  ComputeBatch bad;
  bad.requests.push_back({ComputeOp::FFma32, 33, 1, 1, 1, std::nullopt});
  {
    auto recorder = record_to(sim::open("h100-sxm"), dir_);
    EXPECT_THROW(recorder->compute(bad), Error);
    recorder->finish();
  }
  auto replay = open_replay(dir_);
  try {
    replay->compute(bad);
    FAIL() << "the recorded refusal was not raised";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
  }
}

TEST_F(ComputeRoundTrip, AMalformedSampleFileNamesFileAndLine) {
  {
    auto recorder = record_to(sim::open("h100-sxm"), dir_);
    recorder->compute(batch());
    recorder->finish();
  }
  std::filesystem::path samples;
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    if (e.path().filename().string().find("compute") != std::string::npos) samples = e.path();
  ASSERT_FALSE(samples.empty());
  testing::write_text(samples, "request,block,sm,cycles\n0,0,0,12\n0,3,0,x\n");
  try {
    open_replay(dir_);
    FAIL() << "a malformed sample file was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(samples.filename().string()), std::string::npos)
        << e.what();
  }
}

TEST_F(ComputeRoundTrip, DiscoveryFromAReplayGivesTheLiveTable) {
  discovery::Options o;
  o.only = {"pipelines"};
  discovery::NullProgress progress;
  discovery::Result live;
  {
    auto recorder = record_to(sim::open("h100-sxm", 5), dir_);
    live = discovery::discover(*recorder, o, progress);
    recorder->finish();
  }
  auto replay = open_replay(dir_);
  const discovery::Result again = discovery::discover(*replay, o, progress);
  EXPECT_EQ(model::to_json(again.compute), model::to_json(live.compute));
  ASSERT_NE(model::find(live.compute, "dfmaLatency"), nullptr);
}

}  // namespace
}  // namespace gputopo::device::record
