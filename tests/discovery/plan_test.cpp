#include "discovery/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "device/sim/sim_device.hpp"
#include "discovery/context.hpp"
#include "discovery/progress.hpp"
#include "discovery/registry.hpp"

namespace gputopo::discovery {
namespace {

class Named final : public Probe {
 public:
  Named(std::string name, std::vector<std::string> elements, std::vector<std::string> needs,
        Selection selection = Selection::AnyElement)
      : Probe(std::move(name), std::move(elements), std::move(needs), selection) {}
  void run(Context&) override {}
};

// A probe that declares what it reads and writes.
class Declared final : public Probe {
 public:
  Declared(std::string name, std::vector<Finding> reads, std::vector<Finding> writes)
      : Probe(std::move(name), {"a"}) {
    declare(std::move(reads), std::move(writes));
  }
  void run(Context&) override {}
};

std::vector<std::unique_ptr<Probe>> toy() {
  std::vector<std::unique_ptr<Probe>> v;
  v.push_back(std::make_unique<Named>("a.size", std::vector<std::string>{"a"},
                                      std::vector<std::string>{"a.fetch"}));
  v.push_back(std::make_unique<Named>("a.fetch", std::vector<std::string>{"a"},
                                      std::vector<std::string>{}));
  v.push_back(
      std::make_unique<Named>("b.size", std::vector<std::string>{"b"}, std::vector<std::string>{}));
  v.push_back(std::make_unique<Named>("share", std::vector<std::string>{"a", "b"},
                                      std::vector<std::string>{"a.size", "b.size"}));
  return v;
}

std::vector<std::string> names(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& probe : p.probes()) out.push_back(probe->name());
  return out;
}

TEST(Plan, OrdersDependenciesFirst) {
  Plan p(toy(), {});
  EXPECT_EQ(names(p), (std::vector<std::string>{"a.fetch", "a.size", "b.size", "share"}));
  EXPECT_EQ(p.elements(), (std::vector<std::string>{"a", "b"}));
}

TEST(Plan, OnlyAddsDependenciesButReportsTheSelection) {
  Plan p(toy(), {"b"});
  // b's probes plus the sharing probe, which needs a's size and therefore a's fetch.
  EXPECT_EQ(names(p), (std::vector<std::string>{"b.size", "a.fetch", "a.size", "share"}));
  EXPECT_EQ(p.elements(), (std::vector<std::string>{"b"}));
}

TEST(Plan, AProbeSelectedByAllItsElementsNeedsThemAll) {
  auto with_all = [] {
    auto probes = toy();
    probes.push_back(std::make_unique<Named>("share.all", std::vector<std::string>{"a", "b"},
                                             std::vector<std::string>{"share"},
                                             Probe::Selection::AllElements));
    return probes;
  };
  EXPECT_EQ(names(Plan(with_all(), {"b"})),
            (std::vector<std::string>{"b.size", "a.fetch", "a.size", "share"}));
  EXPECT_EQ(names(Plan(with_all(), {"a", "b"})),
            (std::vector<std::string>{"a.fetch", "a.size", "b.size", "share", "share.all"}));
}

TEST(Plan, OnlyL1RunsNoProbeOfTheOtherViews) {
  device::DeviceInfo info;
  info.constant_bytes = 65536;
  for (const auto& n : names(Plan(registered_probes(info), {"l1"}))) {
    EXPECT_EQ(n.rfind("l1.", 0), 0u) << n;
  }
  const auto all =
      names(Plan(registered_probes(info), {"l1", "texture", "readOnly", "constantL1"}));
  EXPECT_NE(std::find(all.begin(), all.end(), "sharing.size"), all.end());
}

TEST(Plan, ProbeNameSelectsOneProbe) {
  Plan p(toy(), {"a.size"});
  EXPECT_EQ(names(p), (std::vector<std::string>{"a.fetch", "a.size"}));
}

TEST(Plan, AProbeFollowsTheProducersOfWhatItReadsButNotTheProbesThatReviseIt) {
  using model::keys::lineSize;
  using model::keys::size;
  std::vector<std::unique_ptr<Probe>> v;
  // Registered consumers first: only the declarations can put the producers before them.
  v.push_back(std::make_unique<Declared>("a.line", std::vector<Finding>{{"a", &size}},
                                         std::vector<Finding>{{"a", &lineSize}}));
  v.push_back(std::make_unique<Declared>("a.revise", std::vector<Finding>{{"a", &size}},
                                         std::vector<Finding>{{"a", &size}}));
  v.push_back(std::make_unique<Declared>("a.size", std::vector<Finding>{},
                                         std::vector<Finding>{{"a", &size}}));
  const auto n = names(Plan(std::move(v), {}));
  EXPECT_EQ(n, (std::vector<std::string>{"a.size", "a.line", "a.revise"}));
}

TEST(Plan, AProbeTouchingAFindingItDidNotDeclareIsAProgrammingError) {
  if (!Context::strict_findings()) GTEST_SKIP() << "built without GPUTOPO_STRICT_FINDINGS";
  using model::keys::lineSize;
  using model::keys::size;
  const auto device = device::sim::open("toy", 1);
  NullProgress progress;
  const Options options;
  Context ctx(*device, options, progress, nullptr);
  const Declared probe("a.line", {{"a", &size}}, {{"a", &lineSize}});
  ctx.set_probe(&probe);
  EXPECT_NO_THROW(ctx.get("a", size));
  EXPECT_NO_THROW(ctx.get("a", lineSize));  // its own finding
  EXPECT_NO_THROW(ctx.put("a", lineSize, model::Attribute{}));
  EXPECT_THROW(ctx.get("b", size), std::logic_error);
  EXPECT_THROW(ctx.put("a", size, model::Attribute{}), std::logic_error);
  ctx.set_probe(nullptr);
  EXPECT_NO_THROW(ctx.put("a", size, model::Attribute{}));  // the framework
}

// Compute probes name no other probe: selecting one runs the producers of the compute findings it
// declares to read, first.
TEST(Plan, AComputeProbeFollowsTheProducersOfTheComputeFindingsItReads) {
  device::DeviceInfo info;
  info.constant_bytes = 65536;
  const auto sharing = names(Plan(registered_probes(info), {"constantSharing"}));
  const auto icache = std::find(sharing.begin(), sharing.end(), "instructionCaches");
  ASSERT_NE(icache, sharing.end());
  EXPECT_LT(icache, std::find(sharing.begin(), sharing.end(), "constantSharing"));
  const auto segments = names(Plan(registered_probes(info), {"l2Segments"}));
  const auto layout = std::find(segments.begin(), segments.end(), "layout");
  ASSERT_NE(layout, segments.end());
  EXPECT_LT(layout, std::find(segments.begin(), segments.end(), "l2Segments"));
}

TEST(Plan, UnknownNameIsAUsageError) {
  try {
    Plan p(toy(), {"l3"});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'l3'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("a, b"), std::string::npos);
  }
}

TEST(Plan, RegisteredProbesFormAValidPlanInTheDocumentedOrder) {
  device::DeviceInfo info;
  info.constant_bytes = 65536;
  Plan p(registered_probes(info), {});
  const auto n = names(p);
  auto pos = [&](const std::string& s) {
    const auto it = std::find(n.begin(), n.end(), s);
    EXPECT_NE(it, n.end()) << s;
    return it - n.begin();
  };
  for (const std::string e : {"l1", "texture", "readOnly", "constantL1"}) {
    EXPECT_LT(pos(e + ".fetch"), pos(e + ".size"));
    EXPECT_LT(pos(e + ".size"), pos(e + ".line"));
    EXPECT_LT(pos(e + ".line"), pos(e + ".missPenalty"));
    EXPECT_LT(pos(e + ".missPenalty"), pos("sharing"));
    EXPECT_LT(pos(e + ".amount"), pos("sharing"));
  }
  EXPECT_LT(pos("constantL1.size"), pos("constantL15.size"));
  // The L1.5's presence is judged from its finished attributes and the L2's near latency.
  for (const std::string need :
       {"constantL15.fetch", "constantL15.size", "constantL15.latency", "l2.latency"})
    EXPECT_LT(pos(need), pos("constantL15.presence")) << need;
  for (const std::string e : {"l1", "texture", "readOnly", "constantL1", "constantL15", "shared"})
    EXPECT_NE(std::find(p.elements().begin(), p.elements().end(), e), p.elements().end()) << e;
}

}  // namespace
}  // namespace gputopo::discovery
