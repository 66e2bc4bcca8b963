#include "analysis/contention_classes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <vector>

// Lines classed by reduction contention, on synthetic slices: a set's time is its most loaded
// slice's count of lines, with noise.
namespace gputopo::analysis {
namespace {

// A slice map that no linear hash gives: 94 slices, two neighbouring lines on each, the slice
// moving by 37 from pair to pair and by one more every 512 lines.
int odd_slice(int line) { return (line / 2 * 37 + line / 512) % 94; }

struct Timer {
  int (*slice)(int);
  double noise;
  double partial = 1;  // time of two lines on distinct slices that share a path (H200: 1.25)
  std::mt19937 rng{5};
  double operator()(const std::vector<int>& set) {
    std::map<int, int> load;
    int most = 0;
    for (const int l : set) most = std::max(most, ++load[slice(l)]);
    double t = most;
    if (most == 1 && set.size() == 2 && slice(set[0]) / 2 == slice(set[1]) / 2) t = partial;
    return t * (1 + std::normal_distribution<double>(0, noise)(rng));
  }
};

void expect_partition(const ContentionClasses& c, int lines, int (*slice)(int)) {
  std::map<int, int> class_of_slice;
  for (int l = 0; l < lines; ++l) {
    const auto [at, fresh] = class_of_slice.emplace(slice(l), c.label[static_cast<size_t>(l)]);
    EXPECT_EQ(at->second, c.label[static_cast<size_t>(l)]) << "line " << l;
  }
  EXPECT_EQ(c.sizes.size(), class_of_slice.size());
}

TEST(ContentionClasses, NinetyFourSlicesOfANonLinearMapAreFoundExactly) {
  Timer timer{odd_slice, 0.01, 1.25};
  const auto c = contention_classes(1024, std::ref(timer));
  expect_partition(c, 1024, odd_slice);
  EXPECT_EQ(c.sizes.size(), 94u);
  EXPECT_LT(c.worst_distinct, 1.4);
  EXPECT_GT(c.worst_shared, 1.8);
  // Each line costs a group test per 8 classes up to its own and 3 halvings, not a test per class.
  EXPECT_LT(c.tests, 1024 * 12);
}

TEST(ContentionClasses, RepresentativesAreEachClassesFirstLine) {
  Timer timer{[](int l) { return l % 4; }, 0.005};
  const auto c = contention_classes(64, std::ref(timer));
  EXPECT_EQ(c.representative, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(c.sizes, (std::vector<int>{16, 16, 16, 16}));
  EXPECT_NEAR(c.reference_seconds, 1, 0.02);
}

TEST(ContentionClasses, WithoutContentionEveryLineIsItsOwnClass) {
  // No slice bound: every set takes one line's time, so nothing is ever shared.
  Timer timer{[](int l) { return l; }, 0.01};
  const auto c = contention_classes(40, std::ref(timer));
  EXPECT_EQ(c.sizes.size(), 40u);
  EXPECT_TRUE(std::isinf(c.worst_shared));  // never read as shared
}

TEST(ContentionClasses, OneSliceForAllLinesIsOneClass) {
  Timer timer{[](int) { return 0; }, 0.01};
  const auto c = contention_classes(100, std::ref(timer));
  EXPECT_EQ(c.sizes, (std::vector<int>{100}));
  EXPECT_EQ(c.worst_distinct, 0);
}

TEST(ContentionClasses, AClockThatDriftsIsFollowedByTimingTheReferenceAgain) {
  // Every set a little slower than the one before: 1.5 times slower by the end, which would read
  // distinct lines as shared against the first t1 alone.
  struct Drifting {
    Timer timer{odd_slice, 0.005, 1.0};
    double factor = 1;
    double operator()(const std::vector<int>& set) {
      factor += 0.5 / 9000;
      return timer(set) * factor;
    }
  } drifting;
  const auto c = contention_classes(1024, std::ref(drifting));
  EXPECT_GT(drifting.factor, 1.45);
  expect_partition(c, 1024, odd_slice);
  EXPECT_EQ(c.reference_spreads.size(), 8u);
  EXPECT_LT(c.worst_distinct, 1.1);
}

TEST(ContentionClasses, ExtendingClassesTheLinesAfterAgainstTheSameClasses) {
  Timer timer{odd_slice, 0.01, 1.25};
  auto c = contention_classes(512, std::ref(timer));
  const auto representatives = c.representative;
  extend_classes(c, 1024, std::ref(timer));
  EXPECT_TRUE(std::equal(representatives.begin(), representatives.end(), c.representative.begin()));
  expect_partition(c, 1024, odd_slice);
  EXPECT_EQ(c.reference_spreads.size(), 8u);  // at the start, then every 128 lines
}

TEST(UnseenClasses, BitsThatMoveNoLineJoinLinesIntoUnits) {
  // Class = index bits 1 and 3: bits 0 and 2 move no line, so 16 lines form 4 units, one a class.
  std::vector<int> label;
  for (int i = 0; i < 16; ++i) label.push_back((i >> 1 & 1) | (i >> 2 & 2));
  const auto u = unseen_classes(label);
  EXPECT_EQ(u.moving_bits, (std::vector<int>{1, 3}));
  EXPECT_EQ(u.units, 4);
  EXPECT_EQ(u.once, 4);
  EXPECT_EQ(u.twice, 0);
  // Four classes seen once each: f1 (f1 - 1) / 2 = 6 more expected, far from settled.
  EXPECT_DOUBLE_EQ(u.unseen, 6);
  EXPECT_GT(u.upper, 4 + 6);
}

TEST(UnseenClasses, ClassesSeenOftenLeaveNothingUnseen) {
  std::vector<int> label;
  for (int i = 0; i < 256; ++i) label.push_back(i * 7 % 5);
  const auto u = unseen_classes(label);
  EXPECT_EQ(u.once, 0);
  EXPECT_DOUBLE_EQ(u.unseen, 0);
  EXPECT_EQ(u.upper, 5);
}

TEST(UnseenClasses, AFewSingleUnitClassesAmongManyPairsLeaveAFraction) {
  // The H200's shape: 4 classes of one unit, 35 of two, the rest of more.
  std::vector<int> label;
  int k = 0;
  for (; k < 4; ++k) label.push_back(k);
  for (; k < 39; ++k) label.insert(label.end(), 2, k);
  for (; k < 94; ++k) label.insert(label.end(), 3, k);
  const auto u = unseen_classes(label);
  EXPECT_NEAR(u.unseen, 4 * 3 / (2.0 * 36), 1e-12);
  EXPECT_EQ(u.upper, 95);
}

}  // namespace
}  // namespace gputopo::analysis
