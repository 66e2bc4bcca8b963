// The device check's CPU-side helpers (bench/device): trace format and level statistics.
#include <gtest/gtest.h>

#include <sstream>

#include "../../bench/device/check_sweeps.hpp"
#include "../../bench/device/trace_csv.hpp"

namespace gputopo::bench {
namespace {

TEST(TraceCsv, OneRowPerRequestWithSpaceSeparatedCycles) {
  ChaseBatch b;
  b.carveout_percent = 0;
  b.requests = {chase(Space::L1, 4096, 128, 3, 5), chase(Space::Constant, 1024, 64, 2)};
  b.requests[1].pattern = device::Pattern::Random;
  ChaseBatchResult r;
  r.conditions.carveout_percent = 0;
  r.conditions.sm_clock_mhz_after = 1980;
  r.results.resize(2);
  r.results[0].cycles = {34, 34, 280};
  r.results[0].sm = 5;
  r.results[0].overhead_cycles = 11;
  r.results[1].cycles = {37, 102};
  r.results[1].sm = 7;
  r.results[1].overhead_cycles = 11;
  std::ostringstream out;
  write_trace_header(out);
  write_trace_rows(out, "GPU X", b, r);
  EXPECT_EQ(out.str(),
            "device,space,array_bytes,stride_bytes,pattern,warmup_passes,carveout_percent,sm,"
            "overhead_cycles,sm_clock_mhz,cycles\n"
            "GPU X,l1,4096,128,strided,2,0,5,11,1980,34 34 280\n"
            "GPU X,constant,1024,64,random,2,0,7,11,1980,37 102\n");
}

TEST(TraceCsv, UnknownCarveoutAndClockStayEmpty) {
  ChaseBatch b;
  b.requests = {chase(Space::L2, 1 << 20, 128, 1)};
  ChaseBatchResult r;
  r.results.resize(1);
  r.results[0].cycles = {300};
  std::ostringstream out;
  write_trace_rows(out, "G", b, r);
  EXPECT_EQ(out.str(), "G,l2,1048576,128,strided,2,,-1,0,,300\n");
}

TEST(CheckSweeps, ThreeLevelsFindNearFarAndDram) {
  std::vector<std::uint32_t> c;
  for (int i = 0; i < 600; ++i) c.push_back(270 + i % 20);
  for (int i = 0; i < 300; ++i) c.push_back(520 + i % 20);
  for (int i = 0; i < 100; ++i) c.push_back(760 + i % 30);
  const auto levels = three_levels(c);
  ASSERT_EQ(levels.size(), 3U);
  EXPECT_NEAR(levels[0], 280, 10);
  EXPECT_NEAR(levels[1], 530, 10);
  EXPECT_NEAR(levels[2], 775, 15);
  EXPECT_TRUE(three_levels({1, 2}).empty());
}

TEST(CheckSweeps, FirstSizeAboveAThreshold) {
  ChaseBatch b;
  b.requests = {chase(Space::L1, 1024, 128, 4), chase(Space::L1, 2048, 128, 4),
                chase(Space::L1, 4096, 128, 4)};
  ChaseBatchResult r;
  r.results.resize(3);
  r.results[0].cycles = {34, 34, 34, 34};
  r.results[1].cycles = {34, 34, 34, 280};  // 25 % above
  r.results[2].cycles = {280, 280, 280, 280};
  EXPECT_EQ(first_size_above(b, r, 150, 0.05), 2048U);
  EXPECT_EQ(first_size_above(b, r, 150, 0.5), 4096U);
  EXPECT_EQ(first_size_above(b, r, 1000, 0.05), 0U);
  EXPECT_DOUBLE_EQ(fraction_above(r.results[1].cycles, 150), 0.25);
  EXPECT_EQ(median({5, 1, 9}), 5.0);
}

TEST(CheckSweeps, SweepsCoverTheirRanges) {
  const auto l1 = l1_size_sweep(0);
  EXPECT_EQ(l1.carveout_percent, 0);
  EXPECT_EQ(l1.requests.front().array_bytes, 8U * 1024);
  EXPECT_EQ(l1.requests.back().array_bytes, 320U * 1024);
  const auto l2 = l2_sweep(std::uint64_t{50} << 20, 0);
  EXPECT_EQ(l2.requests.front().array_bytes, std::uint64_t{4} << 20);
  EXPECT_LE(l2.requests.back().array_bytes, std::uint64_t{50} << 20 << 1);
  for (const auto& q : l2.requests) {
    EXPECT_EQ(q.sm, 0);
    EXPECT_EQ(q.pattern, device::Pattern::Random);
  }
  const auto c = constant_sweep(64 * 1024);
  EXPECT_EQ(c.requests.front().array_bytes, 64U);
  EXPECT_EQ(c.requests.back().array_bytes, 64U * 1024);
}

}  // namespace
}  // namespace gputopo::bench
