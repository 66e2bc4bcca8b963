#include <gtest/gtest.h>

#include <string>

#include "../record/replay_run.hpp"
#include "../record/test_recordings.hpp"

// The compute probes on a recording made on an H100 (docs/results/h100/compute): the table it
// gives offline is the one the GPU gave, and the ranking of the pipes is the hardware's. The
// latencies are the published ones to the cycle (FFMA 4, DFMA 8, MUFU.EX2 17, MUFU.SIN 23) since
// latency chains run as straight code.
namespace gputopo::device::record {
namespace {

using H100ComputeTrace = testing::TempDirTest;

double value(const discovery::Result& r, const char* key) {
  const auto* a = model::find(r.compute, key);
  EXPECT_NE(a, nullptr) << key;
  return a && a->value.is_number() ? a->value.get<double>() : -1;
}

TEST_F(H100ComputeTrace, ReplaysToTheTableTheGpuGave) {
  const auto r = testing::replay_run(
      dir_, "h100-compute-raw.tgz", "raw",
      {"pipelines", "sharedBanks", "barriers", "clusters", "registerReads", "warpSchedulers"});
  EXPECT_NEAR(value(r, "ffmaLatency"), 4.0, 0.01);
  EXPECT_NEAR(value(r, "imadLatency"), 4.0, 0.01);
  EXPECT_NEAR(value(r, "dfmaLatency"), 8.0, 0.01);
  EXPECT_NEAR(value(r, "mufuEx2Latency"), 17.0, 0.02);
  EXPECT_NEAR(value(r, "mufuSinLatency"), 23.0, 0.02);
  EXPECT_NEAR(value(r, "ffmaThroughput"), 123.7, 0.5);
  EXPECT_NEAR(value(r, "mufuEx2Throughput"), 16.0, 0.1);
  EXPECT_NEAR(value(r, "mmaBf16Tflops"), 711.2, 1.0);
  EXPECT_EQ(value(r, "sharedBankCount"), 32);
  EXPECT_EQ(value(r, "sharedBankWidth"), 4);
  EXPECT_NEAR(value(r, "sharedConflictCycles"), 2.0, 0.02);
  EXPECT_EQ(value(r, "warpSchedulers"), 4);
  EXPECT_NEAR(value(r, "syncthreadsLatency"), 18.02, 0.05);
  // The cluster barrier's cost is its release fence: 760 cycles with it, 74 without.
  EXPECT_NEAR(value(r, "clusterSyncLatency"), 760.4, 1.0);
  EXPECT_NEAR(value(r, "clusterSyncRelaxedLatency"), 74.13, 0.1);
  EXPECT_NEAR(value(r, "registerReadsPerClk"), 1.84, 0.01);
  // FP32 issues twice as fast as INT32 and FP64, eight times as fast as the MUFU.
  EXPECT_GT(value(r, "ffmaThroughput"), 1.9 * value(r, "iadd3Throughput"));
  EXPECT_GT(value(r, "ffmaThroughput"), 1.9 * value(r, "dfmaThroughput"));
  EXPECT_GT(value(r, "ffmaThroughput"), 7.5 * value(r, "mufuRsqThroughput"));
}

// The divergence and cluster probes on a recording made on an H100 (docs/results/h100/clusters):
// the paths rejoin after the branch, a distributed-shared-memory load takes 194 cycles (published:
// about 180-210) and a cluster barrier with cluster.sync()'s ordering 761.
TEST_F(H100ComputeTrace, ReplaysToTheClusterAndReconvergenceFiguresTheGpuGave) {
  const auto r = testing::replay_run(dir_, "h100-divergence-clusters-raw.tgz", "raw",
                                     {"divergence", "clusters"});
  EXPECT_NEAR(value(r, "dsmemLatency"), 193.9, 0.5);
  EXPECT_NEAR(value(r, "dsmemReadBytesPerClkPerSm"), 17.07, 0.05);
  EXPECT_NEAR(value(r, "clusterSyncLatency"), 760.9, 1.0);
  EXPECT_NEAR(value(r, "divergenceCyclesPerPath"), 106.5, 0.5);
  const auto* rejoin = model::find(r.compute, "divergenceReconverges");
  ASSERT_TRUE(rejoin && rejoin->available());
  EXPECT_EQ(rejoin->value, true);
}

// wgmma on a recording made on an H100 (docs/results/h100/wgmma): two warpgroups of one block
// stream BF16 m64n256k16 products at 4096 FLOP per clock per SM, 1070.9 TFLOP/s at 1980 MHz,
// and FP8 m64n256k32 ones, E4M3 and E5M2 alike, at 8192, 2140.9 TFLOP/s; cuBLAS's 8192^3 products
// (PyTorch) on the same GPU reached 770.5 (BF16) and 1401.4 (FP8 E4M3).
TEST_F(H100ComputeTrace, ReplaysToTheWgmmaRatesTheGpuGave) {
  const auto r = testing::replay_run(dir_, "h100-wgmma-raw.tgz", "raw", {"wgmma"});
  EXPECT_NEAR(value(r, "wgmmaBf16PerClkPerSm"), 4097.3, 1.0);
  EXPECT_NEAR(value(r, "wgmmaBf16Tflops"), 1070.9, 0.5);
  EXPECT_GE(value(r, "wgmmaBf16Tflops"), 0.95 * 770.5);
  EXPECT_NEAR(value(r, "wgmmaE4m3PerClkPerSm"), 8191.3, 2.0);
  EXPECT_NEAR(value(r, "wgmmaE4m3Tflops"), 2140.9, 1.0);
  EXPECT_NEAR(value(r, "wgmmaE5m2PerClkPerSm"), 8191.5, 2.0);
  EXPECT_NEAR(value(r, "wgmmaE5m2Tflops"), 2140.9, 1.0);
}

// The instruction caches on a recording made on an H100 (docs/results/h100/icache): a loop body
// of straight-line code costs 0.92-1.06 cycles an instruction up to 32 KiB, 1.7-2.5 from 36 to
// 128 KiB and 5.6 from 144 KiB on: two levels, one of 32 to 36 KiB, one of 128 to 144 KiB. The
// second holds constants: a 112 KiB body and a 64 KiB constant chase, each fitting alone, cost
// 2.66 times the chase more together; the first does not (28 KiB and 16 KiB: nothing more).
TEST_F(H100ComputeTrace, ReplaysToTheInstructionCachesTheGpuGave) {
  const auto r = testing::replay_run(dir_, "h100-icache-raw.tgz", "raw",
                                     {"instructionCaches", "constantSharing", "constantL15"},
                                     discovery::Depth::Full);
  const auto* a = model::find(r.compute, "instructionCacheSizes");
  ASSERT_TRUE(a && a->available()) << (a ? a->reason : "absent");
  EXPECT_EQ(a->value, (model::Json{{32768.0, 36864.0}, {131072.0, 147456.0}}));
  const auto* held = model::find(r.compute, "instructionCacheHoldsConstants");
  ASSERT_TRUE(held && held->available()) << (held ? held->reason : "absent");
  EXPECT_EQ(held->value, true);
  EXPECT_EQ(held->evidence["level"], 2);
  EXPECT_NEAR(held->evidence["tests"][1]["extraShareOfChase"].get<double>(), 2.66, 0.02);
  EXPECT_NEAR(held->evidence["tests"][0]["extraShareOfChase"].get<double>(), 0, 0.01);
  const model::Attribute* size = nullptr;
  for (const auto& e : r.memory)
    if (e.key == "constantL15") size = model::find(e.attributes, "size");
  ASSERT_TRUE(size && size->available());
  EXPECT_EQ(size->value.get<double>(), 131072);
}

// A recording of the doubling sweep alone (made on an H100 before the halving): it keeps the
// doubling's levels and says why they were not halved.
TEST_F(H100ComputeTrace, AnOlderRecordingKeepsTheDoublingsLevels) {
  const auto r = testing::replay_run(dir_, "h100-icache-doubling-raw.tgz", "raw",
                                     {"instructionCaches"}, discovery::Depth::Full);
  const auto* a = model::find(r.compute, "instructionCacheSizes");
  ASSERT_TRUE(a && a->available()) << (a ? a->reason : "absent");
  EXPECT_EQ(a->value, (model::Json{{32768.0, 65536.0}, {131072.0, 262144.0}}));
  EXPECT_NE(a->evidence.value("notHalved", "").find("no recorded compute call"), std::string::npos)
      << a->evidence.dump();
}

}  // namespace
}  // namespace gputopo::device::record
