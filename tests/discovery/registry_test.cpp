#include "discovery/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "device/sim/sim_device.hpp"

// The registry: the probes registered in their own files, ordered by family, target and place
// (registry.hpp), and found by name.
namespace gputopo::discovery {
namespace {

std::vector<std::string> registered_names(const device::DeviceInfo& info) {
  std::vector<std::string> names;
  for (const auto& p : registered_probes(info)) names.push_back(p->name());
  return names;
}

std::ptrdiff_t at(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return it - names.begin();
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(Registry, EveryProbeHasANameOfItsOwn) {
  for (const char* preset : {"h100-sxm", "mi300x", "toy"}) {
    const auto names = registered_names(device::sim::open(preset)->info());
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << preset;
  }
}

// Each target's probes come together, targets in report order, then the family's probes made once.
TEST(Registry, AFamilysProbesComeTargetByTargetThenTheOnesMadeOnce) {
  const auto names = registered_names(device::sim::open("h100-sxm")->info());
  const std::vector<std::string> targets{"l1", "texture", "readOnly", "constantL1"};
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const std::string& t = targets[i];
    EXPECT_LT(at(names, t + ".fetch"), at(names, t + ".size"));
    EXPECT_LT(at(names, t + ".size"), at(names, t + ".latency"));
    EXPECT_LT(at(names, t + ".latency"), at(names, t + ".amount"));
    if (i + 1 < targets.size()) {
      EXPECT_LT(at(names, t + ".amount"), at(names, targets[i + 1] + ".fetch"));
    }
  }
  EXPECT_LT(at(names, "constantL15.presence"), at(names, "sharing"));
  EXPECT_LT(at(names, "l1.cached"), at(names, "l1.fetch"));
  // The L2's fetch probe is the L1 family's kind, registered first in the L2's family.
  EXPECT_LT(at(names, "sharing"), at(names, "l2.fetch"));
  EXPECT_LT(at(names, "l2.fetch"), at(names, "l2.segments"));
  // The geometry, last, runs target by target too, the L2 last among them.
  EXPECT_LT(at(names, "constantL15.geometry"), at(names, "l2.geometry"));
  EXPECT_LT(at(names, "l2.geometry"), at(names, "l2.sectors"));
  EXPECT_LT(at(names, "warpSchedulers"), at(names, "l1.geometry"));
}

TEST(Registry, AFamilyOfOneVendorIsRegisteredOnItsGpusOnly) {
  const auto nvidia = registered_names(device::sim::open("h100-sxm")->info());
  const auto amd = registered_names(device::sim::open("mi300x")->info());
  for (const char* name : {"layout", "warpSchedulers", "l2.segmentHash"}) {
    EXPECT_TRUE(has(nvidia, name)) << name;
    EXPECT_FALSE(has(amd, name)) << name;
  }
  EXPECT_TRUE(has(amd, "scalarL1.fetch"));
  EXPECT_FALSE(has(nvidia, "scalarL1.fetch"));
  EXPECT_FALSE(has(nvidia, "constantL15.line"));  // a level-1 kind, not made for the L1.5
}

TEST(Registry, AProbeIsFoundByItsName) {
  const auto info = device::sim::open("toy")->info();
  const auto probe = registered_probe(info, "l2.fetch");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(probe->name(), "l2.fetch");
  EXPECT_EQ(probe->elements(), std::vector<std::string>{"l2"});
  EXPECT_EQ(registered_probe(info, "l3.fetch"), nullptr);
}

}  // namespace
}  // namespace gputopo::discovery
