#include "discovery/guard.hpp"

#include <gtest/gtest.h>

namespace gputopo::discovery {
namespace {

TEST(Guard, DriftCountsBeyondNoiseOrFloor) {
  const ControlValues reference{34.0, 280.0, 5000.0};
  const ControlValues quiet{0.0, 0.0, 0.0};
  // 4 % on a chase, 12 % on the stream: under the floors.
  EXPECT_TRUE(drifts(reference, quiet, {35.3, 291.0, 4400.0}).empty());
  // 6 % on the L2 chase: over its 5 % floor.
  const auto d = drifts(reference, quiet, {34.0, 297.0, 5000.0});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].find("L2 chase"), std::string::npos) << d[0];
  // The same 6 % within a control that spread 2 % at the start (4 x 2 % = 8 %): not a drift.
  EXPECT_TRUE(drifts(reference, {0.0, 0.02, 0.0}, {34.0, 297.0, 5000.0}).empty());
  // Faster counts too: a load that was there at the start and left.
  EXPECT_EQ(drifts(reference, quiet, {34.0, 200.0, 9000.0}).size(), 2u);
  // A control not measured at this checkpoint is not judged.
  EXPECT_TRUE(drifts(reference, quiet, {34.0, 280.0, std::nullopt}).empty());
}

TEST(Guard, BusyReasonFromTheDriver) {
  device::DeviceState s;
  EXPECT_FALSE(busy_reason(s, std::nullopt));
  s.other_processes = 2;
  s.others_sm_percent = 3;
  EXPECT_FALSE(busy_reason(s, std::nullopt)) << "holding the GPU without using it is not busy";
  s.others_sm_percent = 60;
  ASSERT_TRUE(busy_reason(s, std::nullopt));
  EXPECT_NE(busy_reason(s, std::nullopt)->find("60 %"), std::string::npos);
  device::DeviceState e;
  e.ecc_uncorrected = 3;
  EXPECT_FALSE(busy_reason(e, 3u));
  e.ecc_uncorrected = 5;
  EXPECT_NE(busy_reason(e, 3u)->find("2 uncorrected ECC"), std::string::npos);
  device::DeviceState x;
  x.xids = {79};
  x.slowdowns = {"thermal"};
  EXPECT_NE(busy_reason(x, std::nullopt)->find("XID 79"), std::string::npos);
  EXPECT_NE(busy_reason(x, std::nullopt)->find("thermal"), std::string::npos);
}

}  // namespace
}  // namespace gputopo::discovery
