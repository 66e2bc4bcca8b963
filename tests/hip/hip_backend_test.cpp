#include "device/hip/hip_backend.hpp"

#include <gtest/gtest.h>

namespace gputopo::device::hip {
namespace {

TEST(HipBackend, IsBuiltWhereHipccWasFound) { EXPECT_EQ(built(), GPUTOPO_EXPECT_HIP != 0); }

// This machine has no AMD GPU (CI, the lead's NVIDIA machines): opening one is a clean NoDriver or
// NoDevice error with one line saying why, as without the backend.
TEST(HipBackend, OpeningWithoutAnAmdGpuFailsCleanly) {
  try {
    open(0);
    GTEST_SKIP() << "an AMD GPU is present: scripts/device-check-amd.sh validates the backend";
  } catch (const Error& e) {
    EXPECT_TRUE(e.kind() == Error::Kind::NoDriver || e.kind() == Error::Kind::NoDevice) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    EXPECT_FALSE(std::string(e.what()).empty());
  }
}

}  // namespace
}  // namespace gputopo::device::hip
