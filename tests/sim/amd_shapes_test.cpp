#include <gtest/gtest.h>

#include <algorithm>

#include "device/sim/sim_device.hpp"
#include "sim_test_util.hpp"

// The AMD shapes of the simulator: a scalar L1 shared by a few CUs, an L2 per XCD that only its
// own CUs reach, a memory-side cache between the L2 and device memory, wave64.
namespace gputopo::device::sim {
namespace {
using test::chase_request;
using test::fraction_above;
using test::KiB;
using test::MiB;

// Share of A's timed loads above `limit` after B ran on SM `sm_b` (A on SM `sm_a`).
double a_misses(Device& device, Space space, std::uint64_t bytes, int sm_a, int sm_b, double limit,
                std::uint32_t stride = 64) {
  InterferenceRequest r;
  r.a = chase_request(space, bytes, stride, 256);
  r.b = chase_request(space, bytes + stride, stride, 0);
  r.placement = InterferenceRequest::Placement::TwoSms;
  r.sm = sm_a;
  r.sm_b = sm_b;
  InterferenceBatch batch;
  batch.requests.push_back(r);
  return fraction_above(device.interfere(batch).results.at(0).cycles, limit);
}

TEST(SimAmdShapes, ScalarL1IsSharedByTheCusOfItsGroup) {
  const auto cfg = load_config("mi300x");
  auto device = open("mi300x");
  const auto& groups = cfg.caches[1].sm_group;
  ASSERT_EQ(cfg.caches[1].name, "scalar_l1");
  ASSERT_EQ(groups.size(), 304u);
  // CU 0's partner: the other CU of its group; on this layout CU c sits on XCD c mod 8.
  const auto partner = std::find(groups.begin() + 1, groups.end(), groups[0]) - groups.begin();
  ASSERT_LT(partner, 304);
  EXPECT_EQ(partner % 8, 0);
  const double limit = cfg.caches[1].latency_cycles + cfg.overhead_cycles + 20;
  EXPECT_GT(a_misses(*device, Space::Constant, 12 * KiB, 0, static_cast<int>(partner), limit), 0.5);
  EXPECT_LT(a_misses(*device, Space::Constant, 12 * KiB, 0, 1, limit), 0.05);
  EXPECT_LT(a_misses(*device, Space::Constant, 12 * KiB, 0, 16, limit), 0.05);
}

TEST(SimAmdShapes, ACuReachesOnlyTheL2OfItsXcd) {
  const auto cfg = load_config("mi300x");
  auto device = open("mi300x");
  EXPECT_EQ(device->info().l2_bytes(), 4 * MiB);  // the driver reports one XCD's L2
  const double limit = cfg.l2.near_latency_cycles + cfg.overhead_cycles + 50;
  // CU 8 shares XCD 0 with CU 0; CU 1 sits on XCD 1.
  EXPECT_GT(a_misses(*device, Space::L2, 3 * MiB, 0, 8, limit, 128), 0.5);
  EXPECT_LT(a_misses(*device, Space::L2, 3 * MiB, 0, 1, limit, 128), 0.05);
}

TEST(SimAmdShapes, MemorySideCacheServesWhatTheL2Evicts) {
  const auto cfg = load_config("mi300x");
  auto device = open("mi300x");
  ASSERT_TRUE(cfg.mall.has_value());
  EXPECT_EQ(device->info().mall_bytes(), 256 * MiB);
  ChaseBatch batch;
  auto r = chase_request(Space::L2, 32 * MiB, 128, 1024);
  r.sm = 0;
  batch.requests.push_back(r);
  const auto cycles = device->chase(batch).results.at(0).cycles;
  std::vector<std::uint32_t> sorted(cycles.begin(), cycles.end());
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2] - cfg.overhead_cycles;
  EXPECT_NEAR(median, cfg.mall->latency_cycles, 40);
  EXPECT_EQ(device->info().warp_size(), 64);
  EXPECT_EQ(device->info().vendor, "AMD");
}

TEST(SimAmdShapes, TwoSmRequestsNeedTwoDifferentSms) {
  auto device = open("mi210");
  InterferenceRequest r;
  r.a = chase_request(Space::Constant, 4 * KiB);
  r.b = chase_request(Space::Constant, 4 * KiB);
  r.placement = InterferenceRequest::Placement::TwoSms;
  r.sm = 3;
  r.sm_b = 3;
  InterferenceBatch batch;
  batch.requests.push_back(r);
  EXPECT_THROW(device->interfere(batch), Error);
  batch.requests[0].sm_b = 104;
  EXPECT_THROW(device->interfere(batch), Error);
}

}  // namespace
}  // namespace gputopo::device::sim
