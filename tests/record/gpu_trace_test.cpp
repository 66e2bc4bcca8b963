#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "device/record/recording.hpp"
#include "device/record/replay.hpp"
#include "test_recordings.hpp"
#include "tools/trace_workload.hpp"

// A recording made on an NVIDIA H200 with tools/record_gpu_trace (data/h200-trace): real traces
// load, answer the requests they were made with, and survive being recorded again.
namespace gputopo::device::record {
namespace {

namespace fs = std::filesystem;
using testing::Workload;

const fs::path kTrace = fs::path(RECORD_TEST_DATA) / "h200-trace";

double median(std::vector<std::uint32_t> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

TEST(GpuTrace, AnswersTheRequestsItWasRecordedWith) {
  auto replay = open_replay(kTrace);
  const DeviceInfo& info = replay->info();
  EXPECT_EQ(info.name(), "NVIDIA H200");
  EXPECT_EQ(info.sm_count(), 132);
  EXPECT_FALSE(info.simulated);
  EXPECT_EQ(info.compute_capability().major, 9);
  EXPECT_EQ(info.compute_capability.method, "cudaDevAttrComputeCapabilityMajor/Minor");

  Workload w;
  auto l1 = replay->chase(w.l1);
  auto l2 = replay->chase(w.l2);
  auto constant = replay->chase(w.constant);
  ASSERT_EQ(l1.results.size(), w.l1.requests.size());
  ASSERT_EQ(l2.results.size(), w.l2.requests.size());
  ASSERT_EQ(constant.results.size(), w.constant.requests.size());
  for (std::size_t i = 0; i < l1.results.size(); ++i) {
    EXPECT_EQ(l1.results[i].cycles.size(), w.l1.requests[i].recorded_loads);
    EXPECT_EQ(l1.results[i].indices.size(), w.l1.requests[i].record_indices ? 512u : 0u);
  }
  EXPECT_EQ(l1.conditions.carveout_percent, 0);
  // Recorded before the L2 fetch limit was reported: read as not known.
  EXPECT_FALSE(l1.conditions.l2_fetch_limit_bytes.has_value());
  // Each answer belongs to its request: L1 hits, then near L2, then DRAM; constant L1, then L1.5.
  EXPECT_LT(median(l1.results.front().cycles), median(l2.results.front().cycles));
  EXPECT_LT(median(l2.results.front().cycles), median(l2.results.back().cycles));
  EXPECT_LT(median(constant.results.front().cycles), median(constant.results.back().cycles));

  EXPECT_EQ(replay->interfere(w.amount).results.size(), 1u);
  for (const auto& s : w.streams) {
    auto r = replay->stream(s);
    ASSERT_EQ(r.gbps.size(), s.repeats);
    EXPECT_GT(r.blocks, 0u);
  }
  auto pairs = replay->co_resident_sms(2);
  ASSERT_FALSE(pairs.empty());
  for (const auto& pair : pairs) EXPECT_EQ(pair.size(), 2u);
}

class GpuTraceAgain : public testing::TempDirTest {};

TEST_F(GpuTraceAgain, RecordingTheReplayGivesTheSameFiles) {
  {
    auto recorder = record_to(open_replay(kTrace), dir_, "record_gpu_trace");
    Workload w;
    recorder->chase(w.l1);
    recorder->chase(w.l2);
    recorder->chase(w.constant);
    recorder->interfere(w.amount);
    for (const auto& s : w.streams) recorder->stream(s);
    recorder->co_resident_sms(2);
    recorder->finish();
  }
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kTrace)) {
    ++files;
    EXPECT_EQ(testing::read_text(entry.path()), testing::read_text(dir_ / entry.path().filename()))
        << entry.path().filename();
  }
  EXPECT_EQ(files, 8u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 8);
}

}  // namespace
}  // namespace gputopo::device::record
