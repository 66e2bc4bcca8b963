// The main job against devices that fail: partial results written, exit 4.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "../report/fake_device.hpp"
#include "../report/schema_validator.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"

namespace gputopo::cli {
namespace {
namespace fs = std::filesystem;

TEST(MainJob, MeasurementFailureWritesThePartialReportAndExitsFour) {
  const fs::path file =
      fs::path(::testing::TempDir()) / ("gputopo-main-job-" + std::to_string(getpid()) + ".json");
  Options o;
  o.quiet = true;
  o.json = true;
  o.output = file.string();
  o.argv = {"gputopo", "--json", "-o", file.string()};
  OpenedDevice opened{std::make_unique<test::FakeDevice>(test::h100_like_info()), ""};
  std::ostringstream out;
  std::ostringstream err;
  std::atomic<bool> interrupted{false};
  const int code = run_discover_on(std::move(opened), o, out, err, interrupted);
  EXPECT_EQ(code, 4) << err.str();
  EXPECT_NE(err.str().find("partial results were written to " + file.string()), std::string::npos)
      << err.str();
  const nlohmann::json written = test::load_json_file(file.string());
  EXPECT_EQ(written["run"]["status"], "failed");
  EXPECT_EQ(written["compute"]["smCount"]["value"], 132);
  EXPECT_EQ(nlohmann::json::parse(out.str()), written);
  test::SchemaValidator schema(test::load_json_file(GPUTOPO_SCHEMA_FILE));
  EXPECT_TRUE(schema.validate(written).empty());
  fs::remove(file);
}

TEST(MainJob, InterruptBeforeTheFirstProbeKeepsTheDriverReport) {
  Options o;
  o.quiet = true;
  o.json = true;
  o.argv = {"gputopo", "--json"};
  OpenedDevice opened{std::make_unique<test::FakeDevice>(test::h100_like_info()), ""};
  std::ostringstream out;
  std::ostringstream err;
  std::atomic<bool> interrupted{true};
  EXPECT_EQ(run_discover_on(std::move(opened), o, out, err, interrupted), 4);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["run"]["status"], "interrupted");
  EXPECT_EQ(j["memory"]["l2"]["apiSize"]["value"], 52428800);
}

// A GPU that cannot be used (exclusive-process mode held by another process) is "no usable GPU".
class UnusableDevice final : public device::Device {
 public:
  const device::DeviceInfo& info() const override { return info_; }
  device::ChaseBatchResult chase(const device::ChaseBatch&) override { refuse(); }
  device::ChaseBatchResult interfere(const device::InterferenceBatch&) override { refuse(); }
  device::StreamResult stream(const device::StreamRequest&) override { refuse(); }
  std::vector<std::vector<int>> co_resident_sms(int) override { refuse(); }

 private:
  [[noreturn]] static void refuse() {
    throw device::Error(device::Error::Kind::NoDevice,
                        "GPU 0 is not usable: cudaStreamCreate: all CUDA-capable devices are busy "
                        "or unavailable (compute mode exclusive-process)");
  }
  device::DeviceInfo info_ = test::h100_like_info();
};

TEST(MainJob, AGpuThatCannotBeUsedIsExitThreeWithTheReason) {
  Options o;
  o.quiet = true;
  std::ostringstream out;
  std::ostringstream err;
  std::atomic<bool> interrupted{false};
  try {
    run_discover_on(OpenedDevice{std::make_unique<UnusableDevice>(), ""}, o, out, err, interrupted);
    FAIL() << "the run went on without a usable GPU";
  } catch (const device::Error& e) {
    EXPECT_EQ(exit_code_for(e.kind()), 3);
    EXPECT_NE(std::string(e.what()).find("exclusive-process"), std::string::npos) << e.what();
  }
}

// A device whose first measurement receives `signal` (SIGTERM) and never returns, as a hung
// kernel would.
class StuckDevice final : public device::Device {
 public:
  explicit StuckDevice(int signal = SIGTERM) : signal_(signal) {}
  const device::DeviceInfo& info() const override { return info_; }
  device::ChaseBatchResult chase(const device::ChaseBatch&) override { hang(); }
  device::ChaseBatchResult interfere(const device::InterferenceBatch&) override { hang(); }
  device::StreamResult stream(const device::StreamRequest&) override { hang(); }
  std::vector<std::vector<int>> co_resident_sms(int) override { hang(); }

 private:
  [[noreturn]] void hang() const {
    std::raise(signal_);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  int signal_;
  device::DeviceInfo info_ = test::h100_like_info();
};

class SignalEndsAStuckRun : public ::testing::TestWithParam<int> {};

// SIGINT, SIGTERM and SIGHUP alike (issue 32: SIGHUP left the run incomplete).
TEST_P(SignalEndsAStuckRun, AfterTheGracePeriodWithTheReportInterrupted) {
  const fs::path file =
      fs::path(::testing::TempDir()) /
      ("gputopo-stuck-" + std::to_string(getpid()) + "-" + std::to_string(GetParam()) + ".json");
  const auto run_stuck = [&] {
    Options o;
    o.quiet = true;
    o.output = file.string();
    o.argv = {"gputopo", "-o", file.string()};
    const auto& interrupted = install_interrupt_handler(std::chrono::milliseconds(200));
    run_discover_on(OpenedDevice{std::make_unique<StuckDevice>(GetParam()), ""}, o, std::cout,
                    std::cerr, interrupted);
  };
  EXPECT_EXIT(run_stuck(), ::testing::ExitedWithCode(4),
              "gputopo: the run interrupted; partial results were written");
  const nlohmann::json written = test::load_json_file(file.string());
  EXPECT_EQ(written["run"]["status"], "interrupted");
  EXPECT_EQ(written["compute"]["smCount"]["value"], 132);
  EXPECT_NE(written["warnings"].dump().find("did not stop within the grace period"),
            std::string::npos)
      << written["warnings"];
  fs::remove(file);
}

INSTANTIATE_TEST_SUITE_P(MainJob, SignalEndsAStuckRun, ::testing::Values(SIGTERM, SIGINT, SIGHUP));

// Issue 32: `timeout 2 gputopo` on a GPU still starting (no report yet) ended without a word.
TEST(MainJob, ASignalBeforeTheRunHasAReportIsStillSaidOnStderr) {
  const auto start_stuck = [] {
    install_interrupt_handler(std::chrono::milliseconds(200));
    std::raise(SIGTERM);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  };
  EXPECT_EXIT(start_stuck(), ::testing::ExitedWithCode(4),
              "gputopo: interrupted: the run did not stop within 0.2 s after the signal");
}

}  // namespace
}  // namespace gputopo::cli
