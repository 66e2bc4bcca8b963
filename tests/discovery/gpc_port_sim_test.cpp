// The GPC port test (--depth full): the TPCs no cluster of 3 or more holds go to the GPC whose
// path to the L2 they share, read from the L2 read rates of SM sets (docs/topology.md).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "device/sim/config.hpp"
#include "device/sim/layout.hpp"
#include "device/sim/presets.hpp"
#include "discovery/probes/layout/gpc_port.hpp"
#include "result_access.hpp"

namespace gputopo::discovery {
namespace {

using testing::number;

// The h200 preset, its GPCs' paths to the L2 bounded at `port_gbps` (0: unbounded).
device::sim::SimConfig h200_with_ports(double port_gbps) {
  return testing::preset_changed("h200", [&](nlohmann::json& j) {
    j["bandwidth"]["gpc_port_gbps"] = port_gbps;
    j["bandwidth"]["sm_l2_read_gbps"] = 220;
  });
}

Result discover_layout(device::sim::SimConfig cfg, std::uint64_t seed) {
  return testing::discover_config(std::move(cfg), {"layout"}, seed, Depth::Full);
}

TEST(GpcPortSim, EveryLoneTpcJoinsTheGpcWhosePortItShares) {
  const auto cfg = h200_with_ports(1250);
  const auto truth = device::sim::build_topology(cfg.layout, cfg.device.sm_count);
  std::vector<int> gpc_of(static_cast<std::size_t>(cfg.device.sm_count), -1);
  for (std::size_t g = 0; g < truth.gpc_sms.size(); ++g)
    for (int sm : truth.gpc_sms[g]) gpc_of[static_cast<std::size_t>(sm)] = static_cast<int>(g);
  for (std::uint64_t seed : {1, 2, 3}) {
    const Result r = discover_layout(cfg, seed);
    const auto* gpcs = model::find(r.compute, "gpcCount");
    ASSERT_NE(gpcs, nullptr);
    ASSERT_TRUE(gpcs->available()) << gpcs->reason;
    EXPECT_EQ(number(gpcs), static_cast<double>(truth.gpc_sms.size()));
    EXPECT_GE(gpcs->confidence.value_or(0), 0.5);
    EXPECT_NE(gpcs->method.find("L2 port"), std::string::npos) << gpcs->method;
    // One measured GPC for each configured one, SM by SM.
    std::map<int, int> measured_to_configured;
    const auto& of_sm = gpcs->evidence["gpcOfSm"];
    for (std::size_t sm = 0; sm < gpc_of.size(); ++sm) {
      ASSERT_TRUE(of_sm[sm].is_number_integer()) << "seed " << seed << " SM " << sm;
      const auto [it, fresh] = measured_to_configured.emplace(of_sm[sm].get<int>(), gpc_of[sm]);
      EXPECT_EQ(it->second, gpc_of[sm]) << "seed " << seed << " SM " << sm;
    }
    EXPECT_EQ(measured_to_configured.size(), truth.gpc_sms.size());
  }
}

TEST(GpcPortSim, WithoutAPortBoundTheLoneTpcsStayUnplaced) {
  const auto cfg = h200_with_ports(0);
  for (std::uint64_t seed : {1, 2, 3}) {
    const Result r = discover_layout(cfg, seed);
    const auto* gpcs = model::find(r.compute, "gpcCount");
    ASSERT_NE(gpcs, nullptr);
    EXPECT_FALSE(gpcs->available());
    const auto& units = gpcs->evidence["portPlacement"]["units"];
    ASSERT_EQ(units.size(), 4u);
    for (const auto& u : units) EXPECT_TRUE(u["gpc"].is_null()) << "seed " << seed << u.dump();
  }
}

TEST(GpcPort, AUnitSharesOnlyThePortThatDoesNotRise) {
  // Two GPCs of 8 SMs bounded at 1000 GB/s; the unit {16, 17} shares the second's port.
  const analysis::SmGroups gpcs = {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}};
  const auto rate = [](const std::vector<int>& sms) {
    int first = 0, second = 0;
    for (int sm : sms) (sm < 8 ? first : second) += 1;
    // Equal work a SM: the busiest port sets the pace.
    const double pace = std::max(first, second) / 1000.0;
    return SetRate{static_cast<double>(sms.size()) / pace, 0.004};
  };
  const auto p = place_by_port(gpcs, {{16, 17}}, [&](const std::vector<int>& sms) {
    std::vector<int> mapped;
    for (int sm : sms) mapped.push_back(sm >= 16 ? 8 + sm : sm);  // the unit lies in port 2
    return rate(mapped);
  });
  EXPECT_EQ(p.gpc_of_unit, (std::vector<int>{1}));
  EXPECT_GT(p.confidence[0], 0.99);
  // Where no port bounds the rate, every GPC rises by the unit's share: not placed.
  const auto flat = place_by_port(gpcs, {{16, 17}}, [](const std::vector<int>& sms) {
    return SetRate{100.0 * static_cast<double>(sms.size()), 0.004};
  });
  EXPECT_EQ(flat.gpc_of_unit, (std::vector<int>{-1}));
  EXPECT_EQ(flat.confidence[0], 0.0);
}

}  // namespace
}  // namespace gputopo::discovery
