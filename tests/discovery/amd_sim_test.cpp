#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"
#include "model/info_report.hpp"
#include "result_access.hpp"
#include "sim_truth.hpp"

// End to end on the AMD-shaped presets (docs/amd.md): a whole discovery against the configuration.
// Discrete answers (lines, fetches, CUs sharing a scalar L1 or an L2, instance counts) must match
// exactly, sizes within 1 %, latencies within 2 %.
namespace gputopo::discovery {
namespace {

using testing::attr;
using testing::number;

bool amd(const std::string& preset) {
  return device::sim::load_config(preset).device.vendor == "AMD";
}

std::vector<std::string> amd_presets() {
  std::vector<std::string> out;
  for (const auto& p : device::sim::preset_names())
    if (amd(p)) out.push_back(p);
  return out;
}

// The preset with its memory-side cache a quarter of its size: still 16 times the L2, so the
// search finds it the same way, in a quarter of the loads. The golden test runs the full-size one.
device::sim::SimConfig amd_config(const std::string& preset) {
  auto cfg = device::sim::load_config(preset);
  if (cfg.mall) cfg.mall->geometry.size_bytes /= 4;
  return cfg;
}

class AmdSim : public ::testing::TestWithParam<std::string> {
 protected:
  static const Result& run(const std::string& preset) {
    static std::map<std::string, Result> done;
    if (const auto it = done.find(preset); it != done.end()) return it->second;
    return done.emplace(preset, testing::discover_config(amd_config(preset), {}, 7)).first->second;
  }
};

void expect_within(const model::Attribute* a, double truth, double tolerance) {
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->available()) << a->reason;
  EXPECT_NEAR(number(a), truth, tolerance * truth);
}

TEST_P(AmdSim, VectorAndScalarL1MatchTheConfiguration) {
  const auto cfg = amd_config(GetParam());
  const Result& r = run(GetParam());
  ASSERT_TRUE(r.completed);
  const auto truth = testing::l1_family_truth(cfg, 0);
  ASSERT_EQ(truth.size(), 2u);
  for (const auto& t : truth) {
    SCOPED_TRACE(t.element);
    ASSERT_TRUE(t.exists);
    expect_within(attr(r, t.element, "size"), static_cast<double>(t.size), 0.01);
    EXPECT_EQ(number(attr(r, t.element, "lineSize")), t.line);
    EXPECT_EQ(number(attr(r, t.element, "fetchGranularity")), t.fetch);
    expect_within(attr(r, t.element, "latency"), t.latency, 0.02);
    EXPECT_EQ(number(attr(r, t.element, "countPerSm")), t.instances);
  }
  // The scalar L1: which CUs share one, every group exactly.
  const auto& spec = cfg.caches[static_cast<std::size_t>(truth[1].cache_index)];
  ASSERT_GT(spec.shared_by_sms, 1u);
  EXPECT_EQ(number(attr(r, "scalarL1", "sharedBySms")), spec.shared_by_sms);
  std::set<int> groups(spec.sm_group.begin(), spec.sm_group.end());
  EXPECT_EQ(number(attr(r, "scalarL1", "instanceCount")), static_cast<double>(groups.size()));
  const auto* shared = attr(r, "scalarL1", "sharedBySms");
  ASSERT_TRUE(shared->evidence.contains("smGroups"));
  for (const auto& g : shared->evidence["smGroups"]) {
    const int first = g.front().get<int>();
    for (const auto& sm : g)
      EXPECT_EQ(spec.sm_group[sm.get<std::size_t>()],
                spec.sm_group[static_cast<std::size_t>(first)]);
    EXPECT_EQ(static_cast<long>(g.size()),
              std::count(spec.sm_group.begin(), spec.sm_group.end(),
                         spec.sm_group[static_cast<std::size_t>(first)]));
  }
}

TEST_P(AmdSim, LdsL2MallAndMemoryMatchTheConfiguration) {
  const auto cfg = amd_config(GetParam());
  const Result& r = run(GetParam());
  expect_within(attr(r, "lds", "latency"), cfg.shared.latency_cycles, 0.02);
  EXPECT_EQ(attr(r, "shared", "latency"), nullptr);
  // One L2 per XCD: a CU reaches its own XCD's L2 only.
  const double segment = static_cast<double>(cfg.l2.geometry.size_bytes);
  expect_within(attr(r, "l2", "capacity"), segment, 0.01);
  EXPECT_EQ(number(attr(r, "l2", "lineSize")), cfg.l2.geometry.line_bytes);
  EXPECT_EQ(number(attr(r, "l2", "fetchGranularity")), cfg.l2.geometry.fetch_bytes);
  expect_within(attr(r, "l2", "nearLatency"), cfg.l2.near_latency_cycles, 0.02);
  const int instances = cfg.l2.far_segments ? 1 : cfg.l2.segments;
  EXPECT_EQ(number(attr(r, "l2", "sharedBySms")), cfg.device.sm_count / instances);
  EXPECT_EQ(number(attr(r, "l2", "instanceCount")), instances);
  // The memory-side cache, where there is one; else the search says there is none.
  const auto* mall = attr(r, "mall", "size");
  ASSERT_NE(mall, nullptr);
  if (cfg.mall) {
    expect_within(mall, static_cast<double>(cfg.mall->geometry.size_bytes), 0.01);
    expect_within(attr(r, "mall", "latency"), cfg.mall->latency_cycles, 0.02);
  } else {
    EXPECT_FALSE(mall->available());
    EXPECT_NE(mall->reason.find("no memory-side cache"), std::string::npos) << mall->reason;
  }
  expect_within(attr(r, "dram", "latency"), cfg.dram.latency_cycles, 0.02);
}

// The counts come from the simulated driver (info); the discovery adds none of NVIDIA's.
TEST_P(AmdSim, ComputeCountsAreReported) {
  const auto cfg = amd_config(GetParam());
  const Result& r = run(GetParam());
  const auto device = device::sim::open(GetParam());
  const auto info = model::make_info_report(device->info());
  const auto value = [&](const char* key) {
    const auto* a = model::find(info.compute, key);
    return a && a->value.is_number() ? a->value.get<double>() : -1.0;
  };
  EXPECT_EQ(value("warpSize"), 64);
  EXPECT_EQ(value("smCount"), cfg.device.sm_count);
  EXPECT_EQ(value("simdsPerCu"), cfg.device.simds_per_cu);
  if (cfg.device.xcd_count > 0) {
    EXPECT_EQ(value("xcdCount"), cfg.device.xcd_count);
    EXPECT_EQ(value("cusPerXcd"), cfg.device.sm_count / cfg.device.xcd_count);
  }
  // NVIDIA's probes (clusters, PTX ops) do not run on AMD.
  EXPECT_EQ(model::find(r.compute, "gpcCount"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Presets, AmdSim, ::testing::ValuesIn(amd_presets()),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace gputopo::discovery
