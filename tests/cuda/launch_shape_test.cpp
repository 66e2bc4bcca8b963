#include "device/cuda/plan/launch_shape.hpp"

#include <gtest/gtest.h>

namespace gputopo::device::cuda {
namespace {

DeviceInfo hopper_like() {
  DeviceInfo i;
  i.sm_count = 132;
  i.max_threads_per_block = 1024;
  i.max_threads_per_sm = 2048;
  i.max_blocks_per_sm = 32;
  return i;
}

TEST(LaunchShape, CandidatesRespectTheLimitsAndComeFullestFirst) {
  const auto info = hopper_like();
  const auto shapes = shape_candidates(info);
  ASSERT_FALSE(shapes.empty());
  for (const auto& s : shapes) {
    EXPECT_LE(s.threads, 1024U);
    EXPECT_LE(s.blocks_per_sm * s.threads, 2048U);
    EXPECT_LE(s.blocks_per_sm, 32U);
  }
  EXPECT_EQ(shapes.front().blocks_per_sm * shapes.front().threads, 2048U);
  EXPECT_EQ(shapes.front().blocks(info), shapes.front().blocks_per_sm * 132U);
  for (std::size_t i = 1; i < shapes.size(); ++i)
    EXPECT_GE(shapes[i - 1].blocks_per_sm * shapes[i - 1].threads,
              shapes[i].blocks_per_sm * shapes[i].threads);
}

TEST(LaunchShape, SmallDevicesGetFewerShapes) {
  auto info = hopper_like();
  info.max_threads_per_block = 512;
  info.max_threads_per_sm = 1024;
  info.max_blocks_per_sm = 2;
  for (const auto& s : shape_candidates(info)) {
    EXPECT_LE(s.threads, 512U);
    EXPECT_LE(s.blocks_per_sm, 2U);
    EXPECT_LE(s.blocks_per_sm * s.threads, 1024U);
  }
}

// A flat launch covers the buffer once: a warp a tile of unroll x 32 accesses.
TEST(LaunchShape, FlatShapesCoverTheBufferOnce) {
  const auto info = hopper_like();
  const auto flat = flat_shape_candidates(info);
  ASSERT_FALSE(flat.empty());
  for (const auto& s : flat) {
    EXPECT_TRUE(s.flat());
    EXPECT_LE(s.threads, 1024U);
  }
  const LaunchShape s{0, 256};
  const StreamVariant v{16, 4};
  EXPECT_EQ(v.tile(), 128U);
  EXPECT_EQ(s.blocks(info, 8 * 128, v.tile()), 1U);
  EXPECT_EQ(s.blocks(info, 8 * 128 + 1, v.tile()), 2U);
  EXPECT_EQ(s.blocks(info, 1U << 30, v.tile()), (1U << 30) / 1024U);
  EXPECT_EQ(s.blocks(info, 0, v.tile()), 1U);
  EXPECT_EQ((LaunchShape{2, 256}).blocks(info, 1U << 30, v.tile()), 264U);
}

TEST(LaunchShape, RepeatsLastAboutTheTarget) {
  EXPECT_EQ(launches_per_repeat(1e-3, 2e-3), 2U);
  EXPECT_EQ(launches_per_repeat(3e-3, 2e-3), 1U);
  EXPECT_EQ(launches_per_repeat(0, 2e-3), 1U);
  EXPECT_EQ(launches_per_repeat(1e-9, 2e-3), 10000U);
}

TEST(LaunchShape, BytesMoved) {
  EXPECT_EQ(bytes_moved(false, 100), 100U);
  EXPECT_EQ(bytes_moved(true, 100), 200U);
}

}  // namespace
}  // namespace gputopo::device::cuda
