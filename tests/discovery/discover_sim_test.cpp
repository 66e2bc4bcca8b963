#include <gtest/gtest.h>

#include <algorithm>

#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"
#include "result_access.hpp"
#include "sim_truth.hpp"

// End to end: a full L1-family discovery on every simulator preset, against the configuration's
// own truth. Discrete attributes must match exactly, continuous ones within 2 %.
namespace gputopo::discovery {
namespace {

using testing::attr;
using testing::ElementTruth;
using testing::number;

class DiscoverSim : public ::testing::TestWithParam<std::string> {
 protected:
  // One discovery per preset, shared by the tests.
  static const Result& run(const std::string& preset) {
    return testing::discover_preset(
               preset, {"l1", "texture", "readOnly", "constantL1", "constantL15", "shared"})
        .result;
  }
};

TEST_P(DiscoverSim, L1FamilyMatchesTheConfiguration) {
  const auto cfg = device::sim::load_config(GetParam());
  const Result& r = run(GetParam());
  ASSERT_TRUE(r.completed);
  EXPECT_FALSE(r.failed);
  for (const ElementTruth& t : testing::l1_family_truth(cfg, 0)) {
    SCOPED_TRACE(t.element);
    if (!t.exists) continue;
    const auto* size = attr(r, t.element, "size");
    ASSERT_NE(size, nullptr);
    if (t.size_capped) {
      EXPECT_EQ(number(size), 65536.0);
      EXPECT_NE(size->reason.find("at least"), std::string::npos) << size->reason;
    } else {
      ASSERT_TRUE(size->available()) << size->reason;
      EXPECT_NEAR(number(size), static_cast<double>(t.size), 0.02 * static_cast<double>(t.size));
      ASSERT_TRUE(size->interval.has_value());
      EXPECT_GE(size->confidence.value_or(0), 0.5);
    }
    EXPECT_EQ(number(attr(r, t.element, "fetchGranularity")), t.fetch);
    const auto* latency = attr(r, t.element, "latency");
    ASSERT_NE(latency, nullptr);
    EXPECT_NEAR(number(latency), t.latency, 0.02 * t.latency + 0.5);
    if (t.element == "constantL15") continue;
    EXPECT_EQ(number(attr(r, t.element, "lineSize")), t.line);
    EXPECT_EQ(number(attr(r, t.element, "countPerSm")), t.instances);
    const auto* shared = attr(r, t.element, "sharedWith");
    ASSERT_NE(shared, nullptr);
    std::vector<std::string> got;
    if (shared->value.is_array())
      for (const auto& s : shared->value) got.push_back(s.get<std::string>());
    auto want = t.shared_with;
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
  }
  const auto* cached = attr(r, "l1", "globalLoadsCached");
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->value, !cfg.space(device::Space::L1).path.empty());
  const auto* shared_latency = attr(r, "shared", "latency");
  EXPECT_NEAR(number(shared_latency), cfg.shared.latency_cycles,
              0.02 * cfg.shared.latency_cycles + 0.5);
}

TEST_P(DiscoverSim, ViewsOfOneCacheReportOneSize) {
  const auto cfg = device::sim::load_config(GetParam());
  const Result& r = run(GetParam());
  const auto truth = testing::l1_family_truth(cfg, 0);
  for (const auto& a : truth)
    for (const auto& b : truth)
      if (a.exists && b.exists && a.cache_index == b.cache_index && a.element != b.element &&
          a.element != "constantL15" && b.element != "constantL15") {
        EXPECT_EQ(number(attr(r, a.element, "size")), number(attr(r, b.element, "size")))
            << a.element << " vs " << b.element;
      }
}

INSTANTIATE_TEST_SUITE_P(Presets, DiscoverSim, ::testing::ValuesIn(device::sim::preset_names()),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace gputopo::discovery
