#include <gtest/gtest.h>

#include <string>

#include "../discovery/result_access.hpp"
#include "device/compute_request.hpp"
#include "device/sim/sim_device.hpp"

// The cluster probe end to end on the simulator: distributed-shared-memory latency and bandwidth
// and the cluster barrier, as configured; GPUs without clusters say why.
namespace gputopo::discovery {
namespace {

double value(const Result& r, const char* key) {
  const auto* a = model::find(r.compute, key);
  EXPECT_TRUE(a && a->available()) << key << ": " << (a ? a->reason : "absent");
  return a && a->available() ? a->value.get<double>() : 0;
}

TEST(ClusterSim, DistributedSharedMemoryAndTheClusterBarrierAsConfigured) {
  const auto cfg = device::sim::load_config("h100-sxm");
  const auto& dsmem = *cfg.compute->pipeline(device::ComputeOp::DsmemLoad);
  const auto& sync = *cfg.compute->pipeline(device::ComputeOp::ClusterSync);
  const auto& relaxed = *cfg.compute->pipeline(device::ComputeOp::ClusterSyncRelaxed);
  const Result r = testing::discover_config(cfg, {"clusters"}, 5);
  EXPECT_NEAR(value(r, "dsmemLatency"), dsmem.latency_cycles, 0.02 * dsmem.latency_cycles);
  EXPECT_NEAR(value(r, "dsmemReadBytesPerClkPerSm"), 4 * dsmem.per_clk_per_sm,
              0.02 * 4 * dsmem.per_clk_per_sm);
  EXPECT_NEAR(value(r, "clusterSyncLatency"), sync.latency_cycles, 0.02 * sync.latency_cycles);
  EXPECT_NEAR(value(r, "clusterSyncBlockLatency"), sync.latency_cycles, 0.02 * sync.latency_cycles);
  EXPECT_NEAR(value(r, "clusterSyncRelaxedLatency"), relaxed.latency_cycles,
              0.02 * relaxed.latency_cycles);
  const auto* a = model::find(r.compute, "clusterSyncRelaxedLatency");
  ASSERT_NE(a, nullptr);
  EXPECT_NEAR(a->evidence.at("releaseFenceCycles").get<double>(),
              sync.latency_cycles - relaxed.latency_cycles, 0.02 * sync.latency_cycles);
}

TEST(ClusterSim, AGpuWithoutClustersSaysWhy) {
  const Result r = testing::discover_config(device::sim::load_config("a100"), {"clusters"}, 5);
  const auto* a = model::find(r.compute, "dsmemLatency");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->available());
  EXPECT_NE(a->reason.find("9.0"), std::string::npos) << a->reason;
}

TEST(ClusterSim, ClusterOpsRunInPairsOfBlocks) {
  const device::DeviceInfo h100 = testing::h100_info();
  device::ComputeRequest r{device::ComputeOp::DsmemLoad, 32, 8, 32, 3, std::nullopt};
  EXPECT_TRUE(device::compute_problem(r, h100));
  r.blocks = 4;
  EXPECT_FALSE(device::compute_problem(r, h100));
  r.op = device::ComputeOp::ClusterSync;
  EXPECT_TRUE(device::compute_problem(r, h100));  // one chain a thread
}

}  // namespace
}  // namespace gputopo::discovery
