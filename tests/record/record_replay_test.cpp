#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "device/record/raw_error.hpp"
#include "device/record/raw_json.hpp"
#include "device/record/recording.hpp"
#include "device/record/replay.hpp"
#include "fake_device.hpp"
#include "model/device_facts.hpp"
#include "test_recordings.hpp"

namespace gputopo::device::record {
namespace {

namespace fs = std::filesystem;
using testing::amount_batch;
using testing::chase_request;
using testing::copy_stream;
using testing::FakeDevice;
using testing::l1_sweep;
using testing::read_text;
using RecordReplay = testing::TempDirTest;

// Everything one pass of the workload got back.
struct Answers {
  std::vector<ChaseBatchResult> batches;
  std::vector<StreamResult> streams;
  std::vector<std::vector<std::vector<int>>> groups;
};

Answers run_workload(Device& d) {
  Answers a;
  a.batches.push_back(d.chase(l1_sweep()));
  a.batches.push_back(d.interfere(amount_batch()));
  a.streams.push_back(d.stream(copy_stream()));
  a.groups.push_back(d.co_resident_sms(2));
  ChaseBatch l2;
  l2.requests.push_back(chase_request(Space::L2, 30ull << 20));
  a.batches.push_back(d.chase(l2));
  l2.l2_fetch_limit_bytes = 0;
  a.batches.push_back(d.chase(l2));
  a.batches.push_back(d.chase(ChaseBatch{}));
  return a;
}

void expect_same(const RunConditions& a, const RunConditions& b) {
  EXPECT_EQ(a.sm_clock_mhz_before, b.sm_clock_mhz_before);
  EXPECT_EQ(a.sm_clock_mhz_after, b.sm_clock_mhz_after);
  EXPECT_EQ(a.clock_changed, b.clock_changed);
  EXPECT_EQ(a.carveout_percent, b.carveout_percent);
  EXPECT_EQ(a.l2_fetch_limit_bytes, b.l2_fetch_limit_bytes);
  EXPECT_EQ(a.elapsed_ns, b.elapsed_ns);
  EXPECT_EQ(a.elapsed_cycles, b.elapsed_cycles);
  EXPECT_EQ(a.reruns, b.reruns);
}

void expect_same(const ChaseBatchResult& a, const ChaseBatchResult& b) {
  ASSERT_EQ(a.results.size(), b.results.size());
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    EXPECT_EQ(a.results[i].cycles, b.results[i].cycles) << "result " << i;
    EXPECT_EQ(a.results[i].indices, b.results[i].indices) << "result " << i;
    EXPECT_EQ(a.results[i].sm, b.results[i].sm) << "result " << i;
    EXPECT_EQ(a.results[i].overhead_cycles, b.results[i].overhead_cycles) << "result " << i;
  }
  expect_same(a.conditions, b.conditions);
}

void expect_same(const StreamResult& a, const StreamResult& b) {
  EXPECT_EQ(a.gbps, b.gbps);
  EXPECT_EQ(a.blocks, b.blocks);
  EXPECT_EQ(a.threads_per_block, b.threads_per_block);
  EXPECT_EQ(a.vector_bytes, b.vector_bytes);
  EXPECT_EQ(a.unroll, b.unroll);
  EXPECT_EQ(a.candidates, b.candidates);
  expect_same(a.conditions, b.conditions);
}

void expect_same(const Answers& a, const Answers& b) {
  ASSERT_EQ(a.batches.size(), b.batches.size());
  for (std::size_t i = 0; i < a.batches.size(); ++i) expect_same(a.batches[i], b.batches[i]);
  ASSERT_EQ(a.streams.size(), b.streams.size());
  for (std::size_t i = 0; i < a.streams.size(); ++i) expect_same(a.streams[i], b.streams[i]);
  EXPECT_EQ(a.groups, b.groups);
}

TEST_F(RecordReplay, ReplayGivesTheRecordedResultsAndDeviceInfo) {
  FakeDevice reference;
  Answers live;
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_, "0.1.0-test");
    live = run_workload(*recorder);
    EXPECT_EQ(recorder->info().name(), reference.info().name());
  }
  auto replay = open_replay(dir_);
  expect_same(live, run_workload(*replay));

  const DeviceInfo& got = replay->info();
  const DeviceInfo& want = reference.info();
  EXPECT_EQ(got.name(), want.name());
  EXPECT_EQ(got.compute_capability().major, want.compute_capability().major);
  EXPECT_EQ(got.sm_count(), want.sm_count());
  EXPECT_EQ(got.global_memory_bytes(), want.global_memory_bytes());
  EXPECT_EQ(got.l2_bytes(), want.l2_bytes());
  EXPECT_EQ(got.sm_clock_max_mhz(), want.sm_clock_max_mhz());
  const auto got_sections = model::device_sections(got);
  const auto want_sections = model::device_sections(want);
  EXPECT_EQ(model::to_json(got_sections.general), model::to_json(want_sections.general));
  EXPECT_EQ(model::to_json(got_sections.compute), model::to_json(want_sections.compute));
  EXPECT_EQ(got.pci_bus_id.missing, "NVML not loaded");
  EXPECT_EQ(got.cores_per_sm.source, model::Source::Table);
  EXPECT_EQ(got.cores_per_sm.method, "cores-per-sm-by-cc");
  EXPECT_EQ(got.max_block_dim(), (std::array<int, 3>{1024, 1024, 64}));
  EXPECT_TRUE(got.mig_enabled.known());
  EXPECT_FALSE(got.mig_enabled());
  EXPECT_FALSE(got.uuid.reported());
}

TEST_F(RecordReplay, RepeatedRequestsReplayInRecordedOrderAndOutOfOrderByContent) {
  std::vector<ChaseBatchResult> live;
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    live.push_back(recorder->chase(l1_sweep()));
    live.push_back(recorder->chase(l1_sweep()));  // same request, other cycles
    live.push_back(recorder->interfere(amount_batch()));
  }
  ASSERT_NE(live[0].results[0].cycles, live[1].results[0].cycles);

  auto replay = open_replay(dir_);
  expect_same(replay->interfere(amount_batch()), live[2]);
  expect_same(replay->chase(l1_sweep()), live[0]);
  expect_same(replay->chase(l1_sweep()), live[1]);
  // Every recording of this request is used: the first answers again.
  expect_same(replay->chase(l1_sweep()), live[0]);
}

TEST_F(RecordReplay, ARequestNeverRecordedIsABadRequest) {
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    recorder->chase(l1_sweep());
    recorder->stream(copy_stream());
  }
  auto replay = open_replay(dir_);
  auto expect_bad = [](auto&& call) {
    try {
      call();
      ADD_FAILURE() << "an unrecorded request was answered";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
      EXPECT_NE(std::string(e.what()).find("no recorded"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  ChaseBatch other_carveout = l1_sweep();
  other_carveout.carveout_percent.reset();
  expect_bad([&] { replay->chase(other_carveout); });
  ChaseBatch other_stride = l1_sweep();
  other_stride.requests[0].stride_bytes = 64;
  expect_bad([&] { replay->chase(other_stride); });
  ChaseBatch fewer = l1_sweep();
  fewer.requests.pop_back();
  expect_bad([&] { replay->chase(fewer); });
  StreamRequest more_repeats = copy_stream();
  more_repeats.repeats = 5;
  expect_bad([&] { replay->stream(more_repeats); });
  expect_bad([&] { replay->interfere(amount_batch()); });
  expect_bad([&] { replay->co_resident_sms(2); });
  // The recorded ones still answer.
  EXPECT_NO_THROW(replay->chase(l1_sweep()));
  EXPECT_NO_THROW(replay->stream(copy_stream()));
}

// Recordings made before the capacity sweeps ran their sizes on the SMs in turn hold them on SM 0:
// the same batch with its SM-private requests on other SMs is answered from it, an L2 request on
// another SM is not, and a batch recorded as asked is answered as recorded.
TEST_F(RecordReplay, SmPrivateRequestsOnOtherSmsAreAnsweredFromTheirSmZeroRecording) {
  ChaseBatch on_zero;
  for (std::uint64_t kib : {192, 224, 256}) {
    on_zero.requests.push_back(chase_request(Space::L1, kib << 10));
    on_zero.requests.back().sm = 0;
  }
  ChaseBatch l2_on_zero;
  l2_on_zero.requests.push_back(chase_request(Space::L2, 8 << 20));
  l2_on_zero.requests.back().sm = 0;
  ChaseBatchResult live;
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    live = recorder->chase(on_zero);
    recorder->chase(l2_on_zero);
  }
  auto replay = open_replay(dir_);
  ChaseBatch in_turn = on_zero;
  for (std::size_t i = 0; i < in_turn.requests.size(); ++i)
    in_turn.requests[i].sm = static_cast<int>(i);
  expect_same(replay->chase(in_turn), live);
  ChaseBatch l2_elsewhere = l2_on_zero;
  l2_elsewhere.requests.back().sm = 5;
  EXPECT_THROW(replay->chase(l2_elsewhere), Error);
  ChaseBatch other_size = in_turn;
  other_size.requests.back().array_bytes += 128;
  EXPECT_THROW(replay->chase(other_size), Error);
}

// A request's memory region is written only where it is set, like the L2 fetch limit: older
// recordings read as region 0, and requests that differ only in their region replay apart.
TEST_F(RecordReplay, TheRegionIsPartOfTheRequestAndWrittenOnlyWhenSet) {
  ChaseBatch batch;
  batch.requests.push_back(chase_request(Space::L1, 64 << 10));
  batch.requests.push_back(batch.requests.back());
  batch.requests.back().region = 3;
  ChaseBatchResult live;
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    live = recorder->chase(batch);
  }
  const auto manifest = model::Json::parse(read_text(dir_ / "manifest.json"));
  const auto& requests = manifest.at("calls").at(0).at("requests");
  EXPECT_FALSE(requests.at(0).contains("region"));
  EXPECT_EQ(requests.at(1).at("region"), 3);
  auto replay = open_replay(dir_);
  expect_same(replay->chase(batch), live);
  ChaseBatch elsewhere = batch;
  elsewhere.requests.back().region = 2;
  EXPECT_THROW(replay->chase(elsewhere), Error);
}

// Chain timing and a stream's space are written only where set, like the region: requests that
// differ only in them replay apart.
TEST_F(RecordReplay, TimingAndStreamSpaceArePartOfTheRequestAndWrittenOnlyWhenSet) {
  ChaseBatch batch;
  batch.requests.push_back(chase_request(Space::L1, 64 << 10));
  batch.requests.push_back(batch.requests.back());
  batch.requests.back().timing = Timing::Chain;
  StreamRequest shared;
  shared.bytes = 32 << 10;
  shared.space = Space::Shared;
  ChaseBatchResult live;
  StreamResult live_stream;
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    live = recorder->chase(batch);
    live_stream = recorder->stream(shared);
  }
  const auto manifest = model::Json::parse(read_text(dir_ / "manifest.json"));
  const auto& requests = manifest.at("calls").at(0).at("requests");
  EXPECT_FALSE(requests.at(0).contains("timing"));
  EXPECT_EQ(requests.at(1).at("timing"), "chain");
  EXPECT_EQ(manifest.at("calls").at(1).at("request").at("space"), "shared");
  auto replay = open_replay(dir_);
  expect_same(replay->chase(batch), live);
  expect_same(replay->stream(shared), live_stream);
  ChaseBatch per_load = batch;
  per_load.requests.back().timing.reset();
  per_load.requests.front().timing = Timing::Chain;
  EXPECT_THROW(replay->chase(per_load), Error);
  StreamRequest l2 = shared;
  l2.space.reset();
  EXPECT_THROW(replay->stream(l2), Error);
}

// A stream's sharing is written only where set: an own-data read and a shared-set read of the same
// buffer replay apart, and recordings made before the field read as own-data reads.
TEST_F(RecordReplay, StreamSharingIsPartOfTheRequestAndWrittenOnlyWhenSet) {
  StreamRequest own;
  own.bytes = 1 << 20;
  StreamRequest shared = own;
  shared.sharing = StreamSharing::Shared;
  StreamResult live_own;
  StreamResult live_shared;
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    live_own = recorder->stream(own);
    live_shared = recorder->stream(shared);
  }
  const auto manifest = model::Json::parse(read_text(dir_ / "manifest.json"));
  EXPECT_FALSE(manifest.at("calls").at(0).at("request").contains("sharing"));
  EXPECT_EQ(manifest.at("calls").at(1).at("request").at("sharing"), "shared");
  auto replay = open_replay(dir_);
  expect_same(replay->stream(shared), live_shared);
  expect_same(replay->stream(own), live_own);
}

// The L2 fetch limit is part of a chase request, and it and the limit read back are written only
// where they hold a value: recordings made before the field existed read and replay unchanged.
TEST_F(RecordReplay, TheL2FetchLimitIsPartOfTheRequestAndWrittenOnlyWhenSet) {
  ChaseBatch plain;
  plain.requests.push_back(chase_request(Space::L2, 1ull << 20));
  ChaseBatch lowered = plain;
  lowered.l2_fetch_limit_bytes = 0;
  std::vector<ChaseBatchResult> live;
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    live.push_back(recorder->chase(lowered));
    live.push_back(recorder->chase(plain));
    live.push_back(recorder->interfere(amount_batch()));
  }
  const auto manifest = model::Json::parse(read_text(dir_ / "manifest.json"));
  const auto& calls = manifest.at("calls");
  EXPECT_EQ(calls.at(0).at("l2FetchLimitBytes"), 0);
  EXPECT_EQ(calls.at(0).at("conditions").at("l2FetchLimitBytes"), 32);
  EXPECT_FALSE(calls.at(1).contains("l2FetchLimitBytes"));
  EXPECT_EQ(calls.at(1).at("conditions").at("l2FetchLimitBytes"), 64);
  EXPECT_FALSE(calls.at(2).contains("l2FetchLimitBytes"));
  EXPECT_FALSE(calls.at(2).at("conditions").contains("l2FetchLimitBytes"));
  // The older fields stay as they were, null included.
  EXPECT_TRUE(calls.at(2).at("conditions").contains("smClockMhzAfter"));

  auto replay = open_replay(dir_);
  expect_same(replay->chase(plain), live[1]);
  expect_same(replay->chase(lowered), live[0]);
  const auto interfered = replay->interfere(amount_batch());
  EXPECT_FALSE(interfered.conditions.l2_fetch_limit_bytes.has_value());
  ChaseBatch other = plain;
  other.l2_fetch_limit_bytes = 32;
  EXPECT_THROW(replay->chase(other), Error);
}

TEST_F(RecordReplay, ARecordedErrorIsRaisedAgainOnReplay) {
  auto fake = std::make_unique<FakeDevice>();
  fake->fail_on_call = 1;
  {
    auto recorder = record_to(std::move(fake), dir_);
    recorder->chase(l1_sweep());
    try {
      recorder->stream(copy_stream());
      FAIL() << "the fake should have failed";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::Measurement);
    }
  }
  auto replay = open_replay(dir_);
  replay->chase(l1_sweep());
  try {
    replay->stream(copy_stream());
    FAIL() << "the recorded error was not raised";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::Measurement);
    EXPECT_STREQ(e.what(), "kernel ran past its deadline, call 1");
  }
}

TEST_F(RecordReplay, ARunKilledMidwayLeavesAReadableRecording) {
  // A forked child records two calls and dies without running any destructor.
  EXPECT_EXIT(
      {
        auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
        recorder->chase(l1_sweep());
        recorder->stream(copy_stream());
        std::_Exit(7);
      },
      ::testing::ExitedWithCode(7), "");

  FakeDevice same;
  auto replay = open_replay(dir_);
  expect_same(replay->chase(l1_sweep()), same.chase(l1_sweep()));
  expect_same(replay->stream(copy_stream()), same.stream(copy_stream()));
  try {
    replay->co_resident_sms(2);
    FAIL() << "a call after the interruption was answered";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
    EXPECT_NE(std::string(e.what()).find("cut short"), std::string::npos) << e.what();
  }
  EXPECT_NE(read_text(dir_ / "manifest.json").find("\"complete\": false"), std::string::npos);
}

TEST_F(RecordReplay, ARecorderNotFinishedLeavesAnIncompleteRecording) {
  record_to(std::make_unique<FakeDevice>(), dir_)->chase(l1_sweep());
  EXPECT_NE(read_text(dir_ / "manifest.json").find("\"complete\": false"), std::string::npos);
}

TEST_F(RecordReplay, ADirectoryInUseIsRefused) {
  auto first = record_to(std::make_unique<FakeDevice>(), dir_);
  first->chase(l1_sweep());
  try {
    record_to(std::make_unique<FakeDevice>(), dir_);
    FAIL() << "a second recorder was let into the directory";
  } catch (const RawDirError& e) {
    EXPECT_NE(std::string(e.what()).find("is being recorded into by another gputopo"),
              std::string::npos)
        << e.what();
  }
  first->finish();
  first.reset();
  EXPECT_NO_THROW(open_replay(dir_)->chase(l1_sweep()));
  EXPECT_NO_THROW(record_to(std::make_unique<FakeDevice>(), dir_));
}

TEST_F(RecordReplay, LeftoverTemporaryFilesAreRemovedByTheNextRecording) {
  record_to(std::make_unique<FakeDevice>(), dir_)->chase(l1_sweep());
  std::ofstream(dir_ / "00003-chase.csv.tmp") << "request,sm";
  std::ofstream(dir_ / "manifest.json.tmp") << "{";
  std::ofstream(dir_ / "notes.txt") << "mine";
  record_to(std::make_unique<FakeDevice>(), dir_)->finish();
  EXPECT_FALSE(fs::exists(dir_ / "00003-chase.csv.tmp"));
  EXPECT_FALSE(fs::exists(dir_ / "manifest.json.tmp"));
  EXPECT_FALSE(fs::exists(dir_ / "00000-chase.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "notes.txt"));
}

TEST_F(RecordReplay, TheManifestIsReadableAfterEveryCall) {
  auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
  EXPECT_NO_THROW(open_replay(dir_));
  recorder->chase(l1_sweep());
  EXPECT_NO_THROW(open_replay(dir_)->chase(l1_sweep()));
  recorder->co_resident_sms(2);
  EXPECT_NO_THROW(open_replay(dir_)->co_resident_sms(2));
  EXPECT_NE(read_text(dir_ / "manifest.json").find("\"complete\": false"), std::string::npos);
  recorder->finish();
  recorder.reset();
  EXPECT_NE(read_text(dir_ / "manifest.json").find("\"complete\": true"), std::string::npos);
  // A file half-written when a run was killed does not disturb the reader.
  std::ofstream(dir_ / "manifest.json.tmp") << "{\"format\": \"gputo";
  EXPECT_NO_THROW(open_replay(dir_)->chase(l1_sweep()));
}

TEST_F(RecordReplay, ALargeRecordingStaysReadableAndEndsComplete) {
  // Large enough that rewriting the manifest may be spaced out (docs/raw.md).
  auto sweep = [](int call) {
    ChaseBatch b;
    for (int i = 0; i < 132; ++i)
      b.requests.push_back(chase_request(Space::L2, (call * 132ull + i + 1) << 10));
    return b;
  };
  constexpr int kCalls = 120;
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    for (int c = 0; c < kCalls; ++c) {
      recorder->chase(sweep(c));
      if (c % 40 == 39) {
        EXPECT_NO_THROW(open_replay(dir_)) << "after call " << c;
      }
    }
  }
  auto replay = open_replay(dir_);
  FakeDevice same;
  for (int c = 0; c < kCalls; ++c) expect_same(replay->chase(sweep(c)), same.chase(sweep(c)));
}

TEST_F(RecordReplay, SampleFilesFollowTheDocumentedColumns) {
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    recorder->chase(l1_sweep());
    recorder->stream(copy_stream());
  }
  // Cycles are 50 + KiB + load % 7 + call number (0); sm is the request index unless placed.
  std::istringstream chase(read_text(dir_ / "00000-chase.csv"));
  std::string line;
  std::getline(chase, line);
  EXPECT_EQ(line, "request,sm,overhead_cycles,c0,c1,c2,c3,c4,c5,c6,c7,c8");
  std::getline(chase, line);
  EXPECT_EQ(line, "0,0,18.125,66,67,68,69,70,71,72,66,67");
  std::getline(chase, line);
  EXPECT_EQ(line, "1,1,18.125,178,179,180,181,182,183,184,178,179");
  std::getline(chase, line);
  EXPECT_EQ(line, "2,3,18.125,306,307,308,309,310,311,312,306,307");
  EXPECT_FALSE(std::getline(chase, line));

  std::istringstream indices(read_text(dir_ / "00000-chase-indices.csv"));
  std::getline(indices, line);
  EXPECT_EQ(line, "request,i0,i1,i2,i3,i4,i5,i6,i7,i8");
  std::getline(indices, line);
  EXPECT_EQ(line, "1,0,129,258,387,516,645,774,903,1032");
  EXPECT_FALSE(std::getline(indices, line));

  EXPECT_EQ(read_text(dir_ / "00001-stream.csv"),
            "repeat,gbps\n0,2049\n1,2049.25\n2,2049.5\n3,2049.75\n");

  // One request per manifest line, so that a diff shows which request changed.
  std::string manifest = read_text(dir_ / "manifest.json");
  EXPECT_NE(
      manifest.find("\n        {\"space\":\"l1\",\"arrayBytes\":131072,\"strideBytes\":128,"
                    "\"warmupPasses\":1,\"recordedLoads\":9,\"pattern\":\"strided\",\"sm\":-1,"
                    "\"recordIndices\":true},\n"),
      std::string::npos)
      << manifest;
}

TEST_F(RecordReplay, TheSameRunRecordsTheSameBytes) {
  auto record_once = [&](const fs::path& dir) {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir, "v1");
    run_workload(*recorder);
  };
  fs::path second = dir_ / "second";
  record_once(dir_);
  record_once(second);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (entry.is_regular_file()) {
      EXPECT_EQ(read_text(entry.path()), read_text(second / entry.path().filename()))
          << entry.path();
    }
  }
}

TEST_F(RecordReplay, RecordingAgainReplacesTheEarlierRecording) {
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    run_workload(*recorder);
  }
  ASSERT_TRUE(fs::exists(dir_ / "00002-stream.csv"));
  std::ofstream(dir_ / "notes.txt") << "mine";
  {
    auto recorder = record_to(std::make_unique<FakeDevice>(), dir_);
    recorder->chase(l1_sweep());
  }
  EXPECT_TRUE(fs::exists(dir_ / "00000-chase.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "00002-stream.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "notes.txt"));
  EXPECT_THROW(open_replay(dir_)->stream(copy_stream()), Error);
}

TEST_F(RecordReplay, RecordingRefusesADirectoryWithAForeignManifest) {
  fs::create_directories(dir_);
  for (std::string foreign : {"{\"name\": \"someone else's\"}", "{\"format\": 3}", "[1]", "{"}) {
    testing::write_text(dir_ / "manifest.json", foreign);
    try {
      record_to(std::make_unique<FakeDevice>(), dir_);
      ADD_FAILURE() << "a foreign manifest was overwritten: " << foreign;
    } catch (const RawDirError& e) {
      EXPECT_EQ(e.kind(), Error::Kind::Measurement);
      EXPECT_NE(std::string(e.what()).find("not a gputopo recording"), std::string::npos);
    }
    EXPECT_EQ(read_text(dir_ / "manifest.json"), foreign);
  }
}

// A non-finite condition (the manifest's JSON null) round-trips; extreme finite samples come back
// exactly; a non-finite sample cannot be a measurement, and the replay refuses its file (issue 32).
TEST_F(RecordReplay, NonFiniteValuesRoundTripInTheManifestAndAreRefusedInSamples) {
  class Odd final : public Device {
   public:
    explicit Odd(double overhead) : overhead_(overhead) {
      info_.sm_count = 1;
      info_.warp_size = 32;
      info_.max_threads_per_block = 1024;
    }
    const DeviceInfo& info() const override { return info_; }
    ChaseBatchResult chase(const ChaseBatch&) override {
      ChaseBatchResult r;
      r.results.resize(1);
      r.results[0].overhead_cycles = overhead_;
      r.conditions.elapsed_ns = std::nan("");
      return r;
    }
    ChaseBatchResult interfere(const InterferenceBatch&) override { return {}; }
    StreamResult stream(const StreamRequest&) override {
      StreamResult r;
      r.gbps = {1e-300, 123456789.123456789};
      return r;
    }
    std::vector<std::vector<int>> co_resident_sms(int) override { return {}; }

   private:
    double overhead_;
    DeviceInfo info_;
  };
  {
    auto recorder = record_to(std::make_unique<Odd>(18.5), dir_);
    recorder->chase(ChaseBatch{});
    recorder->stream(StreamRequest{});
    recorder->co_resident_sms(16);
  }
  auto replay = open_replay(dir_);
  auto chase = replay->chase(ChaseBatch{});
  ASSERT_EQ(chase.results.size(), 1u);
  EXPECT_EQ(chase.results[0].overhead_cycles, 18.5);
  EXPECT_TRUE(chase.results[0].cycles.empty());
  EXPECT_TRUE(std::isnan(chase.conditions.elapsed_ns));
  EXPECT_EQ(replay->stream(StreamRequest{}).gbps,
            (std::vector<double>{1e-300, 123456789.123456789}));
  EXPECT_TRUE(replay->co_resident_sms(16).empty());

  { record_to(std::make_unique<Odd>(std::nan("")), dir_)->chase(ChaseBatch{}); }
  EXPECT_THROW(open_replay(dir_), RawDirError);
}

}  // namespace
}  // namespace gputopo::device::record

namespace gputopo::device::record {
namespace {

// A request's line offsets are written as arithmetic runs (131,072 consecutive lines are one
// object) and read back as they were; a corrupt count is refused, not allocated.
TEST(OffsetRuns, RunsOfEqualStepsAreOneObjectAndReadBackExactly) {
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t line = 0; line < 131072; ++line) offsets.push_back(line * 128);
  const std::vector<std::uint64_t> tail = {5, 7, 1ull << 40, 64, 0, 8, 16, 24, 24, 3};
  offsets.insert(offsets.end(), tail.begin(), tail.end());
  const Json j = encode_runs(offsets);
  EXPECT_EQ(j[0], (Json{{"from", 0}, {"step", 128}, {"count", 131072}}));
  EXPECT_LT(j.dump().size(), 200u) << j.dump();
  std::vector<std::uint64_t> back;
  decode_runs(JsonField(j, "manifest.json"), back);
  EXPECT_EQ(back, offsets);
  // A falling run, and two offsets alone.
  const std::vector<std::uint64_t> down = {384, 256, 128, 0, 9, 4};
  decode_runs(JsonField(encode_runs(down), "manifest.json"), back);
  EXPECT_EQ(back, down);

  const Json huge = Json::array({Json{{"from", 0}, {"step", 1}, {"count", 1ull << 40}}});
  EXPECT_THROW(decode_runs(JsonField(huge, "manifest.json"), back), RawDirError);
}

}  // namespace
}  // namespace gputopo::device::record
