#include <gtest/gtest.h>

#include "device/sim/sim_device.hpp"
#include "sim_test_util.hpp"

namespace gputopo::device::sim {
namespace {
using test::chase_request;
using test::fraction_above;
using test::KiB;

// Fraction of A's timed loads that missed its first cache after B ran.
double a_misses(Device& device, const InterferenceRequest& request, double hit_limit,
                std::optional<int> carveout = std::nullopt) {
  InterferenceBatch batch;
  batch.requests.push_back(request);
  batch.carveout_percent = carveout;
  const auto out = device.interfere(batch);
  return fraction_above(out.results.at(0).cycles, hit_limit);
}

InterferenceRequest same_thread(Space a, Space b, std::uint64_t a_bytes, std::uint64_t b_bytes,
                                std::uint32_t stride = 128) {
  InterferenceRequest r;
  r.a = chase_request(a, a_bytes, stride, 512);
  r.b = chase_request(b, b_bytes, stride, 0);
  r.placement = InterferenceRequest::Placement::SameThread;
  return r;
}

TEST(SimInterfere, UnifiedL1SharesWithTextureAndReadOnlyButNotConstant) {
  auto device = open("h100-sxm");
  // A fills most of L1 (248 KiB at carve-out 0); B's array then evicts it if they share.
  const auto shares = [&](Space a, Space b) {
    return a_misses(*device, same_thread(a, b, 160 * KiB, 160 * KiB), 120, 0) > 0.5;
  };
  EXPECT_TRUE(shares(Space::L1, Space::Texture));
  EXPECT_TRUE(shares(Space::L1, Space::ReadOnly));
  EXPECT_TRUE(shares(Space::Texture, Space::ReadOnly));
  EXPECT_FALSE(a_misses(*device, same_thread(Space::L1, Space::Constant, 160 * KiB, 60 * KiB), 120,
                        0) > 0.5);
  EXPECT_FALSE(a_misses(*device, same_thread(Space::L1, Space::L2, 160 * KiB, 1024 * KiB), 120, 0) >
               0.5);
  // Without B's traffic A hits: the misses above come from B.
  EXPECT_LT(a_misses(*device, same_thread(Space::L1, Space::L1, 160 * KiB, 4 * KiB), 120, 0), 0.05);
}

TEST(SimInterfere, SeparateTextureCacheIsNotShared) {
  auto device = open("odd-2xl1");
  EXPECT_LT(a_misses(*device, same_thread(Space::L1, Space::Texture, 20 * KiB, 20 * KiB, 64), 150),
            0.05);
  EXPECT_GT(
      a_misses(*device, same_thread(Space::ReadOnly, Space::Texture, 20 * KiB, 20 * KiB, 64), 150),
      0.5);
}

TEST(SimInterfere, TwoL1InstancesServeAlternateWarps) {
  auto device = open("odd-2xl1");
  const auto misses = [&](std::uint32_t thread_b) {
    InterferenceRequest r = same_thread(Space::L1, Space::L1, 20 * KiB, 20 * KiB, 64);
    r.placement = InterferenceRequest::Placement::TwoThreads;
    r.thread_a = 0;
    r.thread_b = thread_b;
    return a_misses(*device, r, 150);
  };
  EXPECT_GT(misses(1), 0.5);    // same warp, same L1
  EXPECT_LT(misses(32), 0.05);  // warp 1: the other L1
  EXPECT_GT(misses(64), 0.5);   // warp 2: back to the first
  EXPECT_LT(misses(96), 0.05);
}

TEST(SimInterfere, OneL1PerSmMissesForAnyWarp) {
  auto device = open("h100-sxm");
  for (std::uint32_t thread_b : {1u, 32u, 64u, 512u}) {
    InterferenceRequest r = same_thread(Space::L1, Space::L1, 160 * KiB, 160 * KiB);
    r.placement = InterferenceRequest::Placement::TwoThreads;
    r.thread_b = thread_b;
    EXPECT_GT(a_misses(*device, r, 120, 0), 0.5) << thread_b;
  }
}

TEST(SimInterfere, ASharedArrayShrinksTheL1) {
  auto device = open("h100-sxm");
  // 200 KiB of L1 data fits at carve-out 0 unless the kernel also needs 100 KiB of shared memory.
  EXPECT_LT(
      a_misses(*device, same_thread(Space::L1, Space::Shared, 200 * KiB, 4 * KiB, 128), 120, 0),
      0.05);
  EXPECT_GT(
      a_misses(*device, same_thread(Space::L1, Space::Shared, 200 * KiB, 100 * KiB, 128), 120, 0),
      0.5);
}

TEST(SimInterfere, BadThreadsAreRejected) {
  auto device = open("toy");
  InterferenceRequest r = same_thread(Space::L1, Space::L1, 4 * KiB, 4 * KiB, 64);
  r.placement = InterferenceRequest::Placement::TwoThreads;
  r.thread_b = 256;  // the toy's blocks hold 256 threads
  InterferenceBatch batch;
  batch.requests.push_back(r);
  EXPECT_THROW(device->interfere(batch), Error);
}

}  // namespace
}  // namespace gputopo::device::sim
