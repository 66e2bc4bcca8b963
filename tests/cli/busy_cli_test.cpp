// The built binary on a busy or failing simulated GPU (docs/busy.md): status, exit code, report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../report/fake_device.hpp"
#include "../report/schema_validator.hpp"
#include "cli/wait_idle.hpp"
#include "gputopo_process.hpp"

namespace gputopo::test {
namespace {
namespace fs = std::filesystem;

// The odd-3seg preset with `extra` (top-level sections) added, as a configuration file.
fs::path config_with(const std::string& name, const nlohmann::json& extra) {
  nlohmann::json config = load_json_file(std::string(GPUTOPO_PRESET_DIR) + "/odd-3seg.json");
  for (const auto& [key, value] : extra.items()) config[key] = value;
  const fs::path file = temp_file(name + ".json");
  std::ofstream(file) << config.dump();
  return file;
}

TEST(BusyCli, BusyGpuIsDisturbedAndExitsFive) {
  const fs::path config = config_with("busy", {{"competing_load", {{"from_call", 0}}}});
  const fs::path out = temp_file("busy-out.json");
  const ProcessResult r =
      gputopo({"--sim", config.string(), "--only", "l2", "-q", "-o", out.string()});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("disturbed"), std::string::npos) << r.err;
  const auto j = load_json_file(out.string());
  expect_conforms(j);
  EXPECT_EQ(j["run"]["status"], "disturbed");
  ASSERT_FALSE(j["run"]["disturbed"].empty());
  EXPECT_FALSE(j["run"]["disturbed"][0]["phases"].empty());
  EXPECT_TRUE(j["memory"]["l2"]["segmentCount"]["value"].is_null());
  fs::remove(config);
  fs::remove(out);
}

TEST(BusyCli, WaitIdleSaysWhatItWaitsForThenRuns) {
  const fs::path config = config_with("wait", {{"competing_load", {{"from_call", 0}}}});
  const ProcessResult r =
      gputopo({"--sim", config.string(), "--only", "l2.fetch", "--wait-idle", "0.3", "--json"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("is busy (another process used 100 % of the SMs); waiting"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("still busy after"), std::string::npos) << r.err;
  EXPECT_EQ(gputopo({"--sim", "toy", "--wait-idle", "-1"}).exit_code, 2);
  EXPECT_EQ(gputopo({"info", "--sim", "toy", "--wait-idle", "1"}).exit_code, 2);
  fs::remove(config);
}

TEST(BusyCli, BusyBudgetIsCheckedAndReported) {
  for (const char* bad : {"0", "-1", "abc", "nan", "inf"}) {
    const ProcessResult r = gputopo({"--sim", "toy", "--busy-budget", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--busy-budget"), std::string::npos) << r.err;
  }
  EXPECT_EQ(gputopo({"info", "--sim", "toy", "--busy-budget", "1"}).exit_code, 2);
  const ProcessResult r = gputopo({"--sim", "toy", "--busy-budget", "none", "--json", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  expect_conforms(j);
  EXPECT_GT(j["run"]["guard"]["checkpoints"].get<int>(), 0);
  EXPECT_GE(j["run"]["guard"]["seconds"].get<double>(), 0);
}

TEST(BusyCli, ShortMemorySkipsAndCompletes) {
  const fs::path config = config_with("memory", {{"faults", {{"free_memory_bytes", 16u << 20}}}});
  const ProcessResult r = gputopo({"--sim", config.string(), "--only", "l2", "--json", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  expect_conforms(j);
  EXPECT_EQ(j["run"]["status"], "incomplete");
  bool skipped = false;
  for (const auto& p : j["run"]["phases"])
    skipped |=
        p["status"].get<std::string>().rfind("skipped: not enough free device memory", 0) == 0;
  EXPECT_TRUE(skipped);
  fs::remove(config);
}

TEST(BusyCli, HungKernelOrLostGpuEndsWithThePartialReportAndExitFour) {
  for (const std::string fault : {"hang_at_call", "lost_at_call"}) {
    const fs::path config = config_with(fault, {{"faults", {{fault, 14}}}});
    const fs::path out = temp_file(fault + "-out.json");
    const ProcessResult r =
        gputopo({"--sim", config.string(), "--only", "l2", "-q", "-o", out.string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find(fault == "hang_at_call" ? "deadline" : "is lost"), std::string::npos)
        << r.err;
    const auto j = load_json_file(out.string());
    expect_conforms(j);
    EXPECT_EQ(j["run"]["status"], "failed");
    EXPECT_GE(j["run"]["phases"].size(), 2u);
    fs::remove(config);
    fs::remove(out);
  }
}

// Busy for its first `busy_readings` states, then free; measures nothing.
class BecomesFree final : public device::Device {
 public:
  explicit BecomesFree(int busy_readings) : busy_(busy_readings) {}
  const device::DeviceInfo& info() const override { return info_; }
  device::ChaseBatchResult chase(const device::ChaseBatch&) override { return {}; }
  device::ChaseBatchResult interfere(const device::InterferenceBatch&) override { return {}; }
  device::StreamResult stream(const device::StreamRequest&) override { return {}; }
  std::vector<std::vector<int>> co_resident_sms(int) override { return {}; }
  device::DeviceState state() override {
    ++readings;
    device::DeviceState s;
    s.others_sm_percent = readings <= busy_ ? 90 : 0;
    return s;
  }
  int readings = 0;

 private:
  device::DeviceInfo info_ = h100_like_info();
  int busy_;
};

TEST(WaitIdle, ReturnsOnceTheGpuIsFree) {
  BecomesFree dev(2);
  std::ostringstream err;
  std::atomic<bool> interrupted{false};
  EXPECT_TRUE(cli::wait_idle(dev, 10, err, false, interrupted, 0.01));
  EXPECT_EQ(dev.readings, 3);
  EXPECT_NE(err.str().find("90 % of the SMs"), std::string::npos) << err.str();
  BecomesFree never(1000);
  EXPECT_FALSE(cli::wait_idle(never, 0.05, err, true, interrupted, 0.01));
}

}  // namespace
}  // namespace gputopo::test
