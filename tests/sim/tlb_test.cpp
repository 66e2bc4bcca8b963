#include "device/sim/tlb.hpp"

#include <gtest/gtest.h>

#include "device/sim/config.hpp"
#include "device/sim/presets.hpp"
#include "device/sim/sim_device.hpp"
#include "sim_test_util.hpp"

namespace gputopo::device::sim {
namespace {

using model::Json;

TlbSpec two_levels() {
  TlbSpec spec;
  spec.levels.push_back({"near", 4, 4, 65536, Replacement::Lru, 10});
  spec.levels.push_back({"far", 16, 2, 65536, Replacement::Lru, 100});
  spec.paths[static_cast<std::size_t>(Space::L2)] = {0, 1};
  spec.paths[static_cast<std::size_t>(Space::Texture)] = {1};
  return spec;
}

TEST(Translation, MissesCostEachLevelWalkedAndFillTheLevels) {
  Translation t(two_levels());
  EXPECT_EQ(t.translate(Space::L2, 0), 110);          // cold: both levels miss
  EXPECT_EQ(t.translate(Space::L2, 65535), 0);        // same page: first level hit
  EXPECT_EQ(t.translate(Space::Shared, 1 << 30), 0);  // no path: no translation
  for (std::uint64_t p = 1; p <= 4; ++p) t.translate(Space::L2, p * 65536);
  EXPECT_EQ(t.translate(Space::L2, 0), 10);  // evicted from the 4-entry level, held by the second
  t.reset();
  EXPECT_EQ(t.translate(Space::L2, 0), 110);
}

TEST(Translation, SpacesNamingALevelShareIt) {
  Translation t(two_levels());
  t.translate(Space::Texture, 0);
  EXPECT_EQ(t.translate(Space::L2, 0), 10);  // the first level is the global loads' own
  EXPECT_TRUE(t.translates(Space::Texture));
  EXPECT_FALSE(t.translates(Space::L1));
}

TEST(Translation, AChaseAcrossPagesPaysThePenaltyOnlyPastTheReach) {
  auto dev = open("tlb-2level", 1);
  // 16 pages of 64 KiB fit the first level; 17 miss it on every load (fully associative, LRU).
  const auto held = test::chase_one(*dev, test::chase_request(Space::L2, 16 * 65600, 65600, 256));
  const auto missed = test::chase_one(*dev, test::chase_request(Space::L2, 17 * 65600, 65600, 256));
  EXPECT_NEAR(test::median(missed.cycles) - test::median(held.cycles), 30, 3);
}

// The "tlb" section of a configuration: the toy preset with `tlb` added.
Json toy_with(Json tlb) {
  for (const auto& [name, text] : embedded_presets())
    if (name == "toy") {
      auto j = Json::parse(text);
      j["tlb"] = std::move(tlb);
      return j;
    }
  return {};
}

std::string tlb_error_of(const Json& json) {
  try {
    parse_config(json.dump(), "bad.json");
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

TEST(TlbConfig, BadFieldsAreRejectedWithTheirPlace) {
  const Json good = {
      {"levels", {{"a", {{"entries", 8}, {"page_bytes", 65536}, {"miss_cycles", 9}}}}},
      {"spaces", {{"l2", {"a"}}}}};
  EXPECT_EQ(tlb_error_of(toy_with(good)), "");
  EXPECT_EQ(parse_config(toy_with(good).dump(), "x").tlb.levels.at(0).ways, 8u);
  auto bad = good;
  bad["levels"]["a"]["page_bytes"] = 65537;
  EXPECT_NE(tlb_error_of(toy_with(bad)).find("tlb.levels.a.page_bytes: must be a power of two"),
            std::string::npos)
      << tlb_error_of(toy_with(bad));
  bad = good;
  bad["levels"]["a"]["ways"] = 3;
  EXPECT_NE(tlb_error_of(toy_with(bad)).find("ways: must divide entries"), std::string::npos);
  bad = good;
  bad["spaces"]["l2"] = {"b"};
  EXPECT_NE(tlb_error_of(toy_with(bad)).find("names no level"), std::string::npos);
  bad = good;
  bad["spaces"]["shared"] = {"a"};
  EXPECT_NE(tlb_error_of(toy_with(bad)).find("tlb.spaces"), std::string::npos);
  bad = good;
  bad["levels"]["a"]["size"] = 1;
  EXPECT_NE(tlb_error_of(toy_with(bad)).find("size"), std::string::npos);
}

}  // namespace
}  // namespace gputopo::device::sim
