// Set counts that share a factor with the probes' strides (a modulo index over 3,645 sets, 3^6 x
// 5): a stride of whole lines then reaches a fraction of the sets, which thrash although the array
// fits. The line probes must read the line all the same.
#include <gtest/gtest.h>

#include "result_access.hpp"

namespace gputopo::discovery {
namespace {

TEST(AliasingSetCounts, TheL2LineIsReadOverAModuloIndexOfOddSets) {
  const auto cfg = testing::preset_changed("geo-lru4", [](nlohmann::json& j) {
    j["l2"]["size_bytes"] = 3645 * 8 * 128;  // 8 ways of 128 B lines, 3,645 sets
  });
  for (const std::uint64_t seed : {1u, 2u}) {
    const Result r = testing::discover_config(cfg, {"l2"}, seed);
    const auto* line = testing::attr(r, "l2", "lineSize");
    ASSERT_TRUE(line && line->available()) << "seed " << seed;
    EXPECT_EQ(testing::number(line), 128) << "seed " << seed;
    EXPECT_TRUE(line->evidence.contains("missFractionAtSevenEighths"));
  }
}

TEST(AliasingSetCounts, TheL1LineIsReadOverAModuloIndexOfOddSets) {
  const auto cfg = testing::preset_changed("odd-ways", [](nlohmann::json& j) {
    j["caches"]["l1"]["size_bytes"] = 532 * 3 * 64;  // 3 ways of 64 B lines, 532 sets
    j["caches"]["l1"]["latency_cycles"] = 29;
  });
  const Result r = testing::discover_config(cfg, {"l1"}, 11);
  const auto* line = testing::attr(r, "l1", "lineSize");
  ASSERT_TRUE(line && line->available());
  EXPECT_EQ(testing::number(line), 64);
  EXPECT_GT(line->confidence.value_or(0), 0.9);
}

}  // namespace
}  // namespace gputopo::discovery
