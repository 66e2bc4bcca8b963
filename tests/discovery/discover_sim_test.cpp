#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

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

// A later view (texture, read-only) of a physical cache that an earlier view has sized takes that
// size after its sharing test and confirm (size evidence `oneCacheWith`, confirmed, naming a view
// of its cache); a view of a cache of its own is searched in full.
void expect_one_cache_sized_once(const Result& r, const std::vector<ElementTruth>& truth) {
  const auto is_view = [](const std::string& e) {
    return e == "l1" || e == "texture" || e == "readOnly";
  };
  std::map<std::string, int> cache_of;
  for (const ElementTruth& t : truth) {
    if (!t.exists || !is_view(t.element)) continue;
    const auto* size = attr(r, t.element, "size");
    if (size == nullptr || !size->available()) continue;
    const auto& ev =
        size->evidence.contains("thisView") ? size->evidence["thisView"] : size->evidence;
    const auto check = ev.contains("oneCacheWith") ? ev["oneCacheWith"] : model::Json();
    const bool confirmed = check.is_object() && check.value("confirmed", false);
    const bool shares_earlier = std::any_of(
        cache_of.begin(), cache_of.end(), [&](const auto& c) { return c.second == t.cache_index; });
    EXPECT_EQ(confirmed, shares_earlier) << t.element << ": " << check.dump();
    if (confirmed) {
      EXPECT_EQ(cache_of[check.value("view", "")], t.cache_index) << t.element;
    }
    cache_of[t.element] = t.cache_index;
  }
}

class DiscoverSim : public ::testing::TestWithParam<std::string> {
 protected:
  // One discovery per preset, shared by the tests.
  static const Result& run(const std::string& preset) {
    return testing::discover_preset(preset,
                                    testing::l1_family_elements(device::sim::load_config(preset)))
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
    if (!t.exists && t.element == "constantL15") {
      // Constant misses go to the L2: no attribute holds a value, each names the L2's latency.
      for (const auto& e : r.memory) {
        if (e.key != t.element) continue;
        EXPECT_FALSE(e.attributes.empty());
        for (const auto& [key, a] : e.attributes) {
          EXPECT_FALSE(a.available()) << key;
          EXPECT_NE(a.reason.find("L2's latency"), std::string::npos) << key << ": " << a.reason;
        }
      }
    }
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
    // A level-2 fetch under the front level's line hides behind it: not established.
    if (t.level > 1 &&
        t.fetch < cfg.geometry(static_cast<std::size_t>(t.inner_index), 0).line_bytes)
      EXPECT_FALSE(attr(r, t.element, "fetchGranularity")->available());
    else
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
  const auto* shared_latency = attr(r, testing::shared_element(cfg), "latency");
  EXPECT_NEAR(number(shared_latency), cfg.shared.latency_cycles,
              0.02 * cfg.shared.latency_cycles + 0.5);
}

TEST_P(DiscoverSim, ViewsOfOneCacheReportOneSize) {
  const auto cfg = device::sim::load_config(GetParam());
  const Result& r = run(GetParam());
  const auto truth = testing::l1_family_truth(cfg, 0);
  expect_one_cache_sized_once(r, truth);
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

// The views of the SM's data caches.
const std::set<std::string> kViews = {"l1", "texture", "readOnly"};

// The presets with an L1, texture or read-only cache under random replacement: the seed changes
// its victims and with them the fine shape of its miss curve (docs/methods.md, "Steepest rise").
std::vector<std::string> random_replacement_presets() {
  std::vector<std::string> out;
  for (const auto& preset : device::sim::preset_names())
    for (const ElementTruth& t : testing::l1_family_truth(device::sim::load_config(preset), 0))
      if (t.exists && t.random_replacement && kViews.count(t.element) &&
          (out.empty() || out.back() != preset))
        out.push_back(preset);
  return out;
}

class DiscoverSimSeeds : public ::testing::TestWithParam<std::tuple<std::string, std::uint64_t>> {};

// Each view's own size, before the views of one physical cache are joined into one, within 2 % of
// the configuration and within 2 % of the other views of that cache, on several seeds.
TEST_P(DiscoverSimSeeds, EveryViewFindsTheCapacity) {
  const auto& [preset, seed] = GetParam();
  const auto truth = testing::l1_family_truth(device::sim::load_config(preset), 0);
  const Result& r = testing::discover_preset(preset, kViews, seed).result;
  std::map<std::string, double> view;
  for (const ElementTruth& t : truth) {
    if (!t.exists || !kViews.count(t.element)) continue;
    const auto* size = attr(r, t.element, "size");
    ASSERT_NE(size, nullptr) << t.element;
    const auto& per_view =
        size->evidence.contains("perView") ? size->evidence["perView"] : model::Json::object();
    view[t.element] =
        per_view.contains(t.element) ? per_view[t.element].get<double>() : number(size);
    EXPECT_NEAR(view[t.element], static_cast<double>(t.size), 0.02 * static_cast<double>(t.size))
        << t.element;
  }
  for (const ElementTruth& a : truth)
    for (const ElementTruth& b : truth)
      if (view.count(a.element) && view.count(b.element) && a.cache_index == b.cache_index) {
        EXPECT_NEAR(view[a.element], view[b.element], 0.02 * static_cast<double>(a.size))
            << a.element << " vs " << b.element;
      }
}

INSTANTIATE_TEST_SUITE_P(Presets, DiscoverSimSeeds,
                         ::testing::Combine(::testing::ValuesIn(random_replacement_presets()),
                                            ::testing::Values(1, 2, 3)),
                         [](const auto& param_info) {
                           std::string n = std::get<0>(param_info.param) + "_seed" +
                                           std::to_string(std::get<1>(param_info.param));
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace gputopo::discovery
