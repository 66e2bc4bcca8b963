#include "device/cuda/plan/batch_plan.hpp"

#include <gtest/gtest.h>

namespace gputopo::device::cuda {
namespace {

using Launches = std::vector<std::vector<std::size_t>>;

PlanLimits plan_limits(int sms = 4) {
  PlanLimits l;
  l.sm_count = sms;
  l.concurrent_bytes = std::uint64_t{25} << 20;
  return l;
}

PlanUnit unit(int group, std::uint64_t bytes, int sm = -1, bool sm_private = true) {
  PlanUnit u;
  u.group = group;
  u.global_bytes = bytes;
  u.sm = sm;
  u.sm_private = sm_private;
  return u;
}

TEST(BatchPlan, AlignsEveryArrayTo2MiB) {
  EXPECT_EQ(align_up(0, kArrayAlignment), 0U);
  EXPECT_EQ(align_up(1, kArrayAlignment), kArrayAlignment);
  EXPECT_EQ(align_up(kArrayAlignment, kArrayAlignment), kArrayAlignment);
  const auto p = place({4096, 3 << 20, 0, 1}, kArrayAlignment);
  ASSERT_EQ(p.offsets.size(), 4U);
  EXPECT_EQ(p.offsets[0], 0U);
  EXPECT_EQ(p.offsets[1], 2U << 20);
  EXPECT_EQ(p.offsets[2], 6U << 20);  // a 3 MiB array takes two 2 MiB slots
  EXPECT_EQ(p.offsets[3], 8U << 20);  // an empty array still gets its own slot
  EXPECT_EQ(p.total, 10U << 20);
  for (auto o : p.offsets) EXPECT_EQ(o % kArrayAlignment, 0U);
}

TEST(BatchPlan, AGapFollowsEverySlot) {
  const auto p = place({4096, 4096}, kArrayAlignment, 4096);
  EXPECT_EQ(p.offsets, (std::vector<std::uint64_t>{0, (2U << 20) + 4096}));
  EXPECT_EQ(p.total, 2 * ((2U << 20) + 4096));
}

TEST(BatchPlan, SmPrivateUnitsShareLaunchesUpToOnePerSm) {
  std::vector<PlanUnit> u(10, unit(0, 4096));
  EXPECT_EQ(plan_launches(u, plan_limits(4)), (Launches{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
}

TEST(BatchPlan, SharedLevelUnitsRunAloneInOrder) {
  std::vector<PlanUnit> u{unit(1, 30 << 20, -1, false), unit(0, 4096), unit(1, 40 << 20, -1, false),
                          unit(0, 4096)};
  EXPECT_EQ(plan_launches(u, plan_limits()), (Launches{{0}, {2}, {1, 3}}));
}

TEST(BatchPlan, GroupsNeverMix) {
  std::vector<PlanUnit> u{unit(0, 4096), unit(1, 4096), unit(0, 4096), unit(1, 4096)};
  EXPECT_EQ(plan_launches(u, plan_limits()), (Launches{{0, 2}, {1, 3}}));
}

TEST(BatchPlan, TwoUnitsPlacedOnOneSmGoToDifferentLaunches) {
  std::vector<PlanUnit> u{unit(0, 4096, 5), unit(0, 4096, 5), unit(0, 4096, 6)};
  auto l = plan_limits(8);
  EXPECT_EQ(plan_launches(u, l), (Launches{{0}, {1, 2}}));
}

TEST(BatchPlan, ConcurrentFootprintIsBounded) {
  // 25 MiB allowed: four 6 MiB arrays fit, the fifth starts a new launch. The padding to the
  // next 2 MiB offset does not count: 132 arrays of 100 KiB share one launch.
  std::vector<PlanUnit> u(5, unit(0, 6 << 20));
  EXPECT_EQ(plan_launches(u, plan_limits(8)), (Launches{{0, 1, 2, 3}, {4}}));
  EXPECT_EQ(plan_launches(std::vector<PlanUnit>(132, unit(0, 100 << 10)), plan_limits(132)).size(),
            1U);
  // A unit larger than the bound still runs, alone.
  std::vector<PlanUnit> big{unit(0, 4096), unit(0, 30 << 20), unit(0, 4096)};
  EXPECT_EQ(plan_launches(big, plan_limits(8)), (Launches{{0}, {1}, {2}}));
}

TEST(BatchPlan, ConstantArraysArePackedDedupedAndBounded) {
  auto c = [](std::uint64_t bytes) { return ConstantArray{bytes, 64, Pattern::Strided}; };
  std::vector<PlanUnit> u(4, unit(0, 0));
  u[0].constants = {c(32 * 1024)};
  u[1].constants = {c(32 * 1024)};  // same contents: shared
  u[2].constants = {c(16 * 1024)};
  u[3].constants = {c(20 * 1024)};  // 32 + 16 + 20 KiB exceeds the 64 KiB bank
  EXPECT_EQ(plan_launches(u, plan_limits(8)), (Launches{{0, 1, 2}, {3}}));
  const auto p = pack_constants({&u[0], &u[1], &u[2]});
  ASSERT_EQ(p.arrays.size(), 2U);
  EXPECT_EQ(p.offset_of(c(32 * 1024)), 0U);
  EXPECT_EQ(p.offset_of(c(16 * 1024)), 32U * 1024);
  EXPECT_EQ(p.bytes, 48U * 1024);
  EXPECT_THROW(p.offset_of(c(1)), std::logic_error);
}

TEST(BatchPlan, ConstantOffsetsAreAligned) {
  std::vector<PlanUnit> u(2, unit(0, 0));
  u[0].constants = {{100, 4, Pattern::Strided}};
  u[1].constants = {{100, 4, Pattern::Random}};
  const auto p = pack_constants({&u[0], &u[1]});
  EXPECT_EQ(p.offsets, (std::vector<std::uint64_t>{0, kConstantAlignment}));
}

}  // namespace
}  // namespace gputopo::device::cuda
