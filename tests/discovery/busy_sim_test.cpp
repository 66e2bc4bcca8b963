#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <set>
#include <string>

#include "device/sim/sim_device.hpp"
#include "discovery/context.hpp"
#include "discovery/discover.hpp"
#include "discovery/guard.hpp"

// A busy or failing simulated GPU (docs/sim.md, "Competing load and faults") against the same GPU
// idle: the defence of docs/busy.md end to end.
namespace gputopo::discovery {
namespace {

const std::set<std::string> kOnly{"l2"};

Result run(const device::sim::SimConfig& config, std::set<std::string> only = kOnly,
           std::optional<double> busy_budget_s = std::nullopt) {
  auto dev = device::sim::make_device(config, 1);
  NullProgress progress;
  Options o;
  o.only = std::move(only);
  o.retry_backoff_s = 0;
  o.busy_budget_s = busy_budget_s;
  return discover(*dev, o, progress, nullptr);
}

// Sizes are measured with noise, which re-runs draw anew: they agree within kSizeTolerance.
constexpr double kSizeTolerance = 0.05;
bool same(const model::Attribute& idle, const model::Attribute& busy) {
  if (busy.unit != "B" || !busy.value.is_number() || !idle.value.is_number())
    return idle.value == busy.value;
  const double i = idle.value.get<double>();
  return std::abs(busy.value.get<double>() - i) <= kSizeTolerance * std::abs(i);
}

// Every discrete measured attribute of `busy` that holds a value at confidence >= 0.5 and
// differs from `idle`, as "element.key".
std::vector<std::string> confidently_wrong(const Result& idle, const Result& busy) {
  std::vector<std::string> wrong;
  auto check = [&](const std::string& where, const model::AttributeList& b,
                   const model::AttributeList& i) {
    for (const auto& [key, a] : b) {
      if (a.source == model::Source::Api || !model::discrete(a) || !a.available()) continue;
      if (a.confidence.value_or(0) < kEstablished) continue;
      const model::Attribute* twin = model::find(i, key);
      if (!twin || !same(*twin, a)) wrong.push_back(where + "." + key);
    }
  };
  check("compute", busy.compute, idle.compute);
  for (const auto& e : busy.memory)
    for (const auto& ie : idle.memory)
      if (ie.key == e.key) check(e.key, e.attributes, ie.attributes);
  return wrong;
}

device::sim::SimConfig preset(std::optional<device::sim::CompetingLoadSpec> load) {
  auto config = device::sim::load_config("odd-3seg");
  config.competing_load = load;
  return config;
}

const Result& idle() {
  static const Result r = run(preset(std::nullopt));
  return r;
}

TEST(BusySim, IdleRunIsNotDisturbed) {
  EXPECT_TRUE(idle().disturbed.empty());
  EXPECT_TRUE(idle().completed);
  EXPECT_FALSE(idle().failed);
}

TEST(BusySim, LoadTheDriverShowsIsNeverConfidentlyWrong) {
  device::sim::CompetingLoadSpec load;  // from the first call to the end
  const Result busy = run(preset(load));
  ASSERT_FALSE(busy.disturbed.empty());
  EXPECT_NE(busy.disturbed.front().why.find("another process"), std::string::npos);
  EXPECT_EQ(confidently_wrong(idle(), busy), std::vector<std::string>{});
  // The L2's structure is there when idle and not established when busy.
  const model::Attribute* count = nullptr;
  for (const auto& e : busy.memory)
    if (e.key == "l2") count = model::find(e.attributes, "segmentCount");
  ASSERT_NE(count, nullptr);
  EXPECT_FALSE(count->available());
  EXPECT_NE(count->reason.find("not established (GPU busy: "), std::string::npos) << count->reason;
  EXPECT_LT(count->confidence.value_or(1), kEstablished);
}

TEST(BusySim, LoadTheDriverStillShowsIsNotReRun) {
  device::sim::CompetingLoadSpec load;
  const Result busy = run(preset(load));
  ASSERT_FALSE(busy.disturbed.empty());
  for (const auto& d : busy.disturbed) {
    EXPECT_EQ(d.reruns, 0);
    EXPECT_NE(d.why.find("not re-run: the driver still shows the load"), std::string::npos)
        << d.why;
  }
  for (const auto& t : busy.timings) EXPECT_EQ(t.status.find("re-run"), std::string::npos);
  EXPECT_GT(busy.checkpoints, 0);
}

TEST(BusySim, BusyBudgetSkipsTheRestAndNamesIt) {
  device::sim::CompetingLoadSpec load;
  const Result busy = run(preset(load), kOnly, 0.0);
  EXPECT_FALSE(busy.completed);
  ASSERT_FALSE(busy.disturbed.empty());
  const auto& last = busy.disturbed.back();
  EXPECT_EQ(last.why.rfind("not run: GPU busy past the busy budget (", 0), 0u) << last.why;
  std::size_t skipped = 0;
  for (const auto& t : busy.timings)
    skipped += t.status.rfind("skipped: GPU busy past the busy budget", 0) == 0 ? 1 : 0;
  EXPECT_EQ(last.phases.size(), skipped);
  EXPECT_GT(skipped, 0u);
  EXPECT_EQ(confidently_wrong(idle(), busy), std::vector<std::string>{});
}

TEST(BusySim, BusyBudgetLeavesAnIdleRunAlone) {
  const Result r = run(preset(std::nullopt), kOnly, 0.0);
  EXPECT_TRUE(r.completed);
  EXPECT_TRUE(r.disturbed.empty());
}

TEST(BusySim, LoadHiddenFromTheDriverIsFoundByTheControls) {
  device::sim::CompetingLoadSpec load;
  load.from_call = 12;
  load.nvml_visible = false;
  const Result busy = run(preset(load));
  ASSERT_FALSE(busy.disturbed.empty());
  EXPECT_NE(busy.disturbed.front().why.find("L2 chase"), std::string::npos)
      << busy.disturbed.front().why;
  EXPECT_EQ(busy.disturbed.front().reruns, kSpanReruns);
  EXPECT_EQ(confidently_wrong(idle(), busy), std::vector<std::string>{});
}

TEST(BusySim, ShortLoadIsOutlastedByReRuns) {
  device::sim::CompetingLoadSpec load;
  load.from_call = 12;
  load.to_call = 20;
  load.nvml_visible = false;
  const Result busy = run(preset(load));
  EXPECT_TRUE(busy.disturbed.empty());
  bool rerun = false;
  for (const auto& t : busy.timings) rerun |= t.status.find("re-run") != std::string::npos;
  EXPECT_TRUE(rerun);
  EXPECT_EQ(confidently_wrong(idle(), busy), std::vector<std::string>{});
}

TEST(FaultSim, ShortMemorySkipsTheLargeProbesAndSaysSo) {
  auto config = preset(std::nullopt);
  config.faults.free_memory_bytes = std::uint64_t{64} << 20;  // well under 2 x L2
  const Result r = run(config);
  EXPECT_FALSE(r.failed);
  ASSERT_FALSE(r.skipped.empty());
  EXPECT_NE(r.skipped.front().find("B are free"), std::string::npos) << r.skipped.front();
  bool said = false;
  for (const auto& w : r.warnings)
    said |= w.find("not enough free device memory") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(FaultSim, HungKernelAndLostGpuEndTheRun) {
  for (const bool hang : {true, false}) {
    auto config = preset(std::nullopt);
    (hang ? config.faults.hang_at_call : config.faults.lost_at_call) = 12;
    try {
      run(config);
      ADD_FAILURE() << "the run went on";
    } catch (const device::Error& e) {
      EXPECT_EQ(e.kind(), device::Error::Kind::Lost);
      EXPECT_NE(std::string(e.what()).find(hang ? "deadline" : "lost"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace gputopo::discovery
