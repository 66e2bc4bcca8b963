#include "model/device_support.hpp"

#include <gtest/gtest.h>

namespace gputopo::model {

TEST(DeviceSupport, ComputeCapabilityOrder) {
  EXPECT_TRUE(compute_capability_at_least(7, 5, 7, 5));
  EXPECT_TRUE(compute_capability_at_least(8, 0, 7, 5));
  EXPECT_TRUE(compute_capability_at_least(12, 0, 9, 0));
  EXPECT_FALSE(compute_capability_at_least(7, 2, 7, 5));
  EXPECT_FALSE(compute_capability_at_least(6, 1, 7, 5));
  EXPECT_FALSE(compute_capability_at_least(8, 9, 9, 0));
}

TEST(DeviceSupport, TooOldGpuSaysWhichIsNeeded) {
  const std::string m = unsupported_gpu_message(0, "Tesla P100-PCIE-16GB", 6, 0, 7, 5);
  EXPECT_NE(m.find("GPU 0 (Tesla P100-PCIE-16GB) has compute capability 6.0"), std::string::npos);
  EXPECT_NE(m.find("needs 7.5 or newer"), std::string::npos);
  EXPECT_NE(m.find("sm_75"), std::string::npos);
  EXPECT_NE(m.find("--sim"), std::string::npos);
  EXPECT_EQ(m.find('\n'), std::string::npos);
}

TEST(DeviceSupport, MissingGpuSaysHowManyExist) {
  EXPECT_EQ(missing_gpu_message(3, 1),
            "GPU 3 does not exist: this host has 1 CUDA GPU (index 0); choose one with -d N");
  EXPECT_EQ(
      missing_gpu_message(8, 8),
      "GPU 8 does not exist: this host has 8 CUDA GPUs (indices 0 to 7); choose one with -d N");
}

}  // namespace gputopo::model
