#include "device/cuda/plan/chase_layout.hpp"

#include <gtest/gtest.h>

#include <set>

#include "device/device.hpp"

namespace gputopo::device::cuda {
namespace {

ChaseLimits limits() {
  ChaseLimits l;
  l.constant_bytes = 64 * 1024;
  l.shared_bytes = 220 * 1024;
  l.texture_max_elements = std::uint64_t{1} << 27;
  l.sm_count = 132;
  return l;
}

ChaseRequest request(Space space, std::uint64_t bytes, std::uint32_t stride) {
  ChaseRequest r;
  r.space = space;
  r.array_bytes = bytes;
  r.stride_bytes = stride;
  return r;
}

Error::Kind kind_of(const ChaseRequest& r) {
  try {
    make_layout(r, limits());
  } catch (const Error& e) {
    return e.kind();
  }
  return Error::Kind::NoDriver;  // "no error" marker for the tests below
}

TEST(ChaseLayout, IndexWidthSwitchesAbove16GiB) {
  EXPECT_EQ(index_bytes_for(kNarrowIndexLimitBytes), 4U);
  EXPECT_EQ(index_bytes_for(kNarrowIndexLimitBytes + 1), 8U);
  const auto wide = make_layout(request(Space::L2, std::uint64_t{20} << 30, 4096), limits());
  EXPECT_EQ(wide.index_bytes, 8U);
  EXPECT_EQ(wide.stride_words, 512U);
  EXPECT_EQ(wide.elements, (std::uint64_t{20} << 30) / 4096);
}

TEST(ChaseLayout, CountsElementsAndWords) {
  const auto l = make_layout(request(Space::L1, 1000, 128), limits());
  EXPECT_EQ(l.index_bytes, 4U);
  EXPECT_EQ(l.elements, 7U);  // whole strides only
  EXPECT_EQ(l.words, 250U);
  EXPECT_EQ(l.stride_words, 32U);
  EXPECT_EQ(l.position(3), 96U);
}

TEST(ChaseLayout, RejectsWhatCannotRun) {
  EXPECT_EQ(kind_of(request(Space::L1, 4096, 6)), Error::Kind::BadRequest);  // not word multiple
  EXPECT_EQ(kind_of(request(Space::L1, 4096, 0)), Error::Kind::BadRequest);
  EXPECT_EQ(kind_of(request(Space::L1, 64, 128)), Error::Kind::BadRequest);  // under one stride
  EXPECT_EQ(kind_of(request(Space::Constant, 65 * 1024, 64)), Error::Kind::BadRequest);
  EXPECT_EQ(kind_of(request(Space::Shared, 221 * 1024, 64)), Error::Kind::BadRequest);
  EXPECT_EQ(kind_of(request(Space::Texture, std::uint64_t{1} << 30, 64)), Error::Kind::BadRequest);
  auto placed = request(Space::L1, 4096, 64);
  placed.sm = 132;
  EXPECT_EQ(kind_of(placed), Error::Kind::BadRequest);
  auto far = request(Space::L1, 4096, 64);
  far.region = kMaxRegion + 1;
  EXPECT_EQ(kind_of(far), Error::Kind::BadRequest);
  auto no_loads = request(Space::L1, 4096, 64);
  no_loads.recorded_loads = 0;
  EXPECT_EQ(kind_of(no_loads), Error::Kind::BadRequest);
  // 8-byte words above 16 GiB: a 4-byte stride no longer fits.
  EXPECT_EQ(kind_of(request(Space::L2, std::uint64_t{17} << 30, 4)), Error::Kind::BadRequest);
  EXPECT_EQ(kind_of(request(Space::Constant, 64 * 1024, 64)), Error::Kind::NoDriver);
}

// Follows the successors from element 0 and returns the visit order.
std::vector<std::uint64_t> walk(const std::vector<std::uint64_t>& next) {
  std::vector<std::uint64_t> order;
  std::uint64_t k = 0;
  do {
    order.push_back(k);
    k = next[k];
  } while (k != 0 && order.size() <= next.size());
  return order;
}

TEST(ChaseLayout, StridedSuccessorsVisitInOrder) {
  const auto next = successors(5, Pattern::Strided);
  EXPECT_EQ(walk(next), (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
}

TEST(ChaseLayout, RandomSuccessorsFormOneCycleThroughEveryElement) {
  for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 17ULL, 1000ULL, 4097ULL}) {
    const auto order = walk(successors(n, Pattern::Random));
    ASSERT_EQ(order.size(), n) << n;
    EXPECT_EQ(std::set<std::uint64_t>(order.begin(), order.end()).size(), n) << n;
  }
}

TEST(ChaseLayout, SequenceSuccessorsFollowTheListedOrder) {
  const auto next = successors(10, Pattern::Sequence, {0, 7, 3, 9});
  EXPECT_EQ(walk(next), (std::vector<std::uint64_t>{0, 7, 3, 9}));
  ChaseRequest r;
  r.array_bytes = 40;
  r.stride_bytes = 4;
  r.pattern = Pattern::Sequence;
  r.warmup_passes = 0;
  r.sequence = {0, 7, 7};
  EXPECT_THROW(make_layout(r, ChaseLimits{}), Error);
  r.sequence = {0, 7, 3};
  EXPECT_NO_THROW(make_layout(r, ChaseLimits{}));
}

TEST(ChaseLayout, RandomSuccessorsAreReproducibleAndNotStrided) {
  const auto a = successors(1000, Pattern::Random);
  EXPECT_EQ(a, successors(1000, Pattern::Random));
  EXPECT_NE(a, successors(1000, Pattern::Strided));
  int forward_steps = 0;
  for (std::uint64_t k = 0; k < a.size(); ++k) forward_steps += a[k] == k + 1;
  EXPECT_LT(forward_steps, 20);
}

TEST(ChaseLayout, ImageHoldsSuccessorPositionsAtChasedWordsOnly) {
  auto r = request(Space::Constant, 1024, 64);
  const auto l = make_layout(r, limits());
  const auto words = image32(l, Pattern::Strided);
  ASSERT_EQ(words.size(), 256U);
  for (std::uint64_t w = 0; w < words.size(); ++w) {
    if (w % 16 == 0)
      EXPECT_EQ(words[w], (w + 16) % 256) << w;
    else
      EXPECT_EQ(words[w], 0U) << w;
  }
  // A random image, chased from position 0, visits every element position once.
  const auto random = image32(l, Pattern::Random);
  std::set<std::uint32_t> seen;
  std::uint32_t p = 0;
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(p % 16, 0U);
    seen.insert(p);
    p = random[p];
  }
  EXPECT_EQ(p, 0U);
  EXPECT_EQ(seen.size(), 16U);
}

}  // namespace
}  // namespace gputopo::device::cuda
