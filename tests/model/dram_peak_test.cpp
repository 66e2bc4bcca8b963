#include "model/dram_peak.hpp"

#include <gtest/gtest.h>

namespace gputopo::model {
namespace {

TEST(DramPeak, IsDoubleDataRateTimesClockTimesBusWidth) {
  // HBM3 on an H100 SXM: 2619 MHz, 5120 bits -> about 3352 GB/s.
  EXPECT_NEAR(peak_dram_gbps(2619, 5120), 3352.3, 0.1);
  EXPECT_EQ(peak_dram_gbps(0, 5120), 0.0);
}

}  // namespace
}  // namespace gputopo::model
