#include "analysis/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace gputopo::analysis {
namespace {

TEST(ParallelFor, CallsEachItemOnceWhateverTheThreads) {
  for (const std::size_t n : {0UL, 1UL, 31UL, 32UL, 1000UL}) {
    std::vector<std::atomic<int>> calls(n);
    parallel_for(n, [&](std::size_t i) { calls[i].fetch_add(1); });
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(calls[i].load(), 1) << "n " << n << " i " << i;
  }
}

TEST(ParallelFor, ItemsWriteTheirOwnResults) {
  std::vector<double> out(500);
  parallel_for(out.size(), [&](std::size_t i) { out[i] = static_cast<double>(i * i); });
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], static_cast<double>(i * i));
}

}  // namespace
}  // namespace gputopo::analysis
