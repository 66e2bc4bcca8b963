#include "device/cuda/plan/launch_check.hpp"

#include <gtest/gtest.h>

namespace gputopo::device::cuda {
namespace {

using Ids = std::vector<std::size_t>;

JobOutcome ran_on(int sm, int wanted = -1) { return {true, false, sm, wanted}; }

TEST(LaunchCheck, DistinctSmsAreAccepted) {
  const auto v = judge_launch({ran_on(0), ran_on(1), ran_on(7)});
  EXPECT_EQ(v.accepted, (Ids{0, 1, 2}));
  EXPECT_TRUE(v.rerun.empty());
}

TEST(LaunchCheck, ASharedSmKeepsTheFirstAndRerunsTheRest) {
  const auto v = judge_launch({ran_on(3), ran_on(4), ran_on(3), ran_on(3)});
  EXPECT_EQ(v.accepted, (Ids{0, 1}));
  EXPECT_EQ(v.rerun, (Ids{2, 3}));
}

TEST(LaunchCheck, JobsNotRunOrOnTheWrongSmAreRerun) {
  const auto v = judge_launch({JobOutcome{}, ran_on(2, 2), ran_on(5, 9)});
  EXPECT_EQ(v.accepted, (Ids{1}));
  EXPECT_EQ(v.rerun, (Ids{0, 2}));
}

TEST(LaunchCheck, TimeoutsAreReportedNotRerun) {
  const auto v = judge_launch({ran_on(0), {false, true, 1, -1}});
  EXPECT_EQ(v.accepted, (Ids{0}));
  EXPECT_EQ(v.timed_out, (Ids{1}));
  EXPECT_TRUE(v.rerun.empty());
}

TEST(LaunchCheck, ARerunJobDoesNotBlockItsSmForLaterJobs) {
  // Job 0 asked for SM 1 but landed on SM 0; job 1 on SM 0 still stands.
  const auto v = judge_launch({ran_on(0, 1), ran_on(0)});
  EXPECT_EQ(v.accepted, (Ids{1}));
  EXPECT_EQ(v.rerun, (Ids{0}));
}

}  // namespace
}  // namespace gputopo::device::cuda
