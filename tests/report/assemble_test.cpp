// The one assembly of a report (src/assembly): the driver's facts, a discovery's findings and the
// run section, as the CLI and the library get them.
#include "assembly/assemble.hpp"

#include <gtest/gtest.h>

#include "fake_device.hpp"
#include "report/json_writer.hpp"

namespace gputopo::assembly {
namespace {

discovery::Result findings() {
  discovery::Result r;
  r.compute.emplace_back("gpcCount", model::Attribute::measured(8, "", "test", 0.9));
  r.memory.push_back({"l1", {{"size", model::Attribute::measured(262144, "B", "test", 0.8)}}});
  r.warnings.push_back("the SM clock changed during the run");
  r.disturbed.push_back({{"l1.size"}, "another process used the GPU", 1});
  r.guard_seconds = 0.25;
  r.checkpoints = 3;
  return r;
}

TEST(Assembly, FindingsJoinTheFactsAndTheRunGetsTheirDisturbancesAndGuard) {
  const Assembly assembly(test::h100_like_info(), true);
  model::Run run;
  run.command = "discover";
  run.status = "disturbed";
  const discovery::Result found = findings();
  const model::Report r = assembly.report(&found, run);
  EXPECT_TRUE(r.simulated);
  EXPECT_EQ(r.tool.name, "gputopo");
  ASSERT_NE(model::find(r.compute, "smCount"), nullptr);   // a fact
  ASSERT_NE(model::find(r.compute, "gpcCount"), nullptr);  // a finding
  EXPECT_NE(model::find(r, "l1.size"), nullptr);
  EXPECT_EQ(r.warnings.back(), "the SM clock changed during the run");
  EXPECT_TRUE(r.topology.gpc_state.measured);  // settled from compute.gpcCount
  ASSERT_TRUE(r.run.disturbed && r.run.guard);
  EXPECT_EQ(r.run.disturbed->front().reruns, 1);
  EXPECT_EQ(r.run.guard->checkpoints, 3);
  const model::Json j = report::to_json(r);
  EXPECT_EQ(j["run"]["status"], "disturbed");
  EXPECT_EQ(j["run"]["disturbed"][0]["why"], "another process used the GPU");
  EXPECT_EQ(j["run"]["guard"]["seconds"], 0.25);
  EXPECT_EQ(j["run"]["simulated"], true);
}

TEST(Assembly, WithoutFindingsTheReportIsTheFactsAndTheRunAlone) {
  const Assembly assembly(test::h100_like_info(), false);
  model::Run run;
  run.command = "info";
  run.device = 2;
  const model::Report r = assembly.report(nullptr, run);
  EXPECT_FALSE(r.simulated);
  EXPECT_NE(model::find(r.compute, "smCount"), nullptr);
  EXPECT_EQ(model::find(r.compute, "gpcCount"), nullptr);
  EXPECT_FALSE(r.run.disturbed || r.run.guard);
  const model::Json j = report::to_json(r);
  EXPECT_EQ(j["run"], (model::Json{{"command", "info"}, {"device", 2}, {"simulated", false}}));
}

}  // namespace
}  // namespace gputopo::assembly
