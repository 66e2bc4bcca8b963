// compare on simulated fleets: seeds of one preset agree; a GPU with an injected fault is the
// outlier, across seeds (docs/fleet.md, "Simulated fleets").
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "device/sim/config.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"
#include "fleet/compare.hpp"
#include "fleet/comparison_output.hpp"
#include "model/info_report.hpp"
#include "report/json_writer.hpp"

namespace gputopo::fleet {
namespace {

using model::Json;

Json preset_json(const std::string& preset) {
  std::ifstream in(std::string(GPUTOPO_PRESET_DIR) + "/" + preset + ".json");
  return Json::parse(in);
}

// One simulated GPU's report as compare reads it.
Member discovered(const Json& preset, std::uint64_t seed, const std::set<std::string>& only,
                  const std::string& name) {
  auto dev = device::sim::make_device(device::sim::parse_config(preset.dump(), name), seed);
  model::Report report = model::make_info_report(dev->info());
  discovery::NullProgress progress;
  discovery::Options options;
  options.only = only;
  const auto r = discovery::discover(*dev, options, progress, nullptr);
  model::merge(report.compute, r.compute);
  model::merge(report.memory, r.memory);
  return members_of(report::to_json(report), name).front();
}

std::string text_of(const Comparison& c) {
  std::ostringstream out;
  write_comparison_text(out, c);
  return out.str();
}

// The estimates of the TPC layout on `noisy` split between two answers across seeds, the wrong
// one at confidence 0.6 (issue 31): established on both sides, they differ, and are shown. Every
// other attribute must agree.
const std::set<std::string> kUnstableEstimates = {"compute.tpcCount", "compute.smsPerTpc"};

// The GPUs with a difference in an attribute other than the unstable estimates.
std::set<std::string> outliers(const Comparison& c) {
  std::set<std::string> out;
  for (const auto& d : c.differences)
    if (!kUnstableEstimates.contains(d.path))
      for (const auto& m : d.members) out.insert(m.member);
  return out;
}

void expect_seeds_agree(const std::string& preset, const std::set<std::string>& only) {
  const Json config = preset_json(preset);
  std::vector<Member> fleet;
  for (std::uint64_t seed : {11, 12, 13, 14})
    fleet.push_back(discovered(config, seed, only, preset + "-" + std::to_string(seed)));
  const auto c = compare(fleet, {});
  EXPECT_GT(c.compared, only.empty() ? 200u : 40u) << preset;
  EXPECT_TRUE(outliers(c).empty()) << text_of(c);
}

TEST(FleetSim, FourSeedsOfNoisyAgree) { expect_seeds_agree("noisy", {}); }

TEST(FleetSim, FourSeedsOfSmallPresetsAgree) {
  for (const std::string preset : {"toy", "odd-3seg"}) expect_seeds_agree(preset, {"l1", "shared"});
}

struct Fault {
  std::string name;
  std::set<std::string> only;  // the probe that sees it
  std::function<void(Json&)> inject;
  std::string attribute;  // the difference it must show as
};

void scale(Json& j, double factor) { j = factor * j.get<double>(); }

const std::vector<Fault>& faults() {
  static const std::vector<Fault> all = {
      {"device memory 15 % slower",
       {"dram.bandwidth"},
       [](Json& p) { scale(p["bandwidth"]["dram_read_gbps"], 0.85); },
       "memory.dram.readBandwidth"},
      {"L2 hits 10 % slower",
       {"l2.latency"},
       [](Json& p) {
         scale(p["l2"]["near_latency_cycles"], 1.1);
         scale(p["l2"]["far_latency_cycles"], 1.1);
       },
       "memory.l2.nearLatency"},
      {"L1 hits 4 cycles slower",
       {"l1.latency"},
       [](Json& p) {
         auto& l1 = p["caches"]["l1"]["latency_cycles"];
         l1 = l1.get<double>() + 4;
       },
       "memory.l1.latency"},
      {"a sixth less shared-memory bandwidth",
       {"shared.bandwidth"},
       [](Json& p) { scale(p["bandwidth"]["shared_read_bytes_per_clk"], 5.0 / 6); },
       "memory.shared.readBandwidth"},
  };
  return all;
}

// Fleets of three healthy GPUs and one with each fault, all of other seeds: the faulty GPU is
// the one outlier, and the fault is among its differences.
void expect_faults_found(const std::string& preset) {
  const Json healthy = preset_json(preset);
  const std::vector<std::vector<std::uint64_t>> fleets = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  for (const Fault& f : faults()) {
    Json sick = healthy;
    f.inject(sick);
    for (const auto& seeds : fleets) {
      std::vector<Member> fleet;
      for (std::uint64_t s : seeds)
        fleet.push_back(discovered(healthy, s, f.only, "ok" + std::to_string(s)));
      fleet.insert(fleet.begin() + 1, discovered(sick, 100 + seeds[0], f.only, "sick"));
      const auto c = compare(fleet, {});
      EXPECT_EQ(outliers(c), std::set<std::string>{"sick"}) << preset << ", " << f.name << "\n"
                                                            << text_of(c);
      bool named = false;
      for (const auto& d : c.differences) named = named || d.path == f.attribute;
      EXPECT_TRUE(named) << preset << ", " << f.name << ": not " << f.attribute << "\n"
                         << text_of(c);
    }
  }
}

TEST(FleetSim, InjectedFaultsAreTheOutliersOnNoisy) { expect_faults_found("noisy"); }

TEST(FleetSim, InjectedFaultsAreTheOutliersOnToy) { expect_faults_found("toy"); }

}  // namespace
}  // namespace gputopo::fleet
