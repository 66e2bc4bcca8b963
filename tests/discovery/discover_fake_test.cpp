#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "discovery/discover.hpp"
#include "fake_device.hpp"
#include "result_access.hpp"

namespace gputopo::discovery {
namespace {

using testing::attr;

using testing::FakeDevice;

struct Recorder final : Progress {
  std::vector<std::string> begun, ended;
  std::size_t advances = 0;
  void begin(std::string_view phase, std::size_t, std::size_t) override {
    begun.emplace_back(phase);
  }
  void advance(std::size_t, std::size_t) override { ++advances; }
  void end(std::string_view phase, double, std::string_view, const Result*) override {
    ended.emplace_back(phase);
  }
};

TEST(DiscoverFake, RunsThePlanAndReportsEveryPhase) {
  FakeDevice dev(64 * 1024);
  Recorder progress;
  Options o;
  o.only = {"l1"};
  const Result r = discover(dev, o, progress, nullptr);
  EXPECT_TRUE(r.completed);
  EXPECT_FALSE(r.failed);
  ASSERT_EQ(r.memory.size(), 1u);
  EXPECT_EQ(r.memory[0].key, "l1");
  EXPECT_EQ(progress.begun, progress.ended);
  EXPECT_EQ(progress.begun.size(), r.timings.size());
  EXPECT_GE(progress.advances, r.timings.size() / 2);
  // The fake's cache fits any array up to 64 KiB (with a 32 B default stride granularity).
  const auto* size = attr(r, "l1", "size");
  ASSERT_NE(size, nullptr);
  ASSERT_TRUE(size->available()) << size->reason;
  EXPECT_NEAR(size->value.get<double>(), 64 * 1024, 64 * 1024 * 0.02);
  ASSERT_TRUE(size->interval.has_value());
  const auto* carveout = attr(r, "l1", "carveout");
  ASSERT_NE(carveout, nullptr);
  EXPECT_EQ(carveout->value, 0);
}

// The batches before the first phase: the control measurements at the start (guard.hpp).
struct FirstPhase final : Progress {
  const FakeDevice& dev;
  int batches_before = -1;
  explicit FirstPhase(const FakeDevice& d) : dev(d) {}
  void begin(std::string_view, std::size_t, std::size_t) override {
    if (batches_before < 0) batches_before = dev.batches;
  }
  void advance(std::size_t, std::size_t) override {}
  void end(std::string_view, double, std::string_view, const Result*) override {}
};

TEST(DiscoverFake, InterruptKeepsWhatWasMeasured) {
  FakeDevice dev;
  std::atomic<bool> stop{false};
  FirstPhase progress(dev);
  dev.on_batch = [&] {
    if (progress.batches_before >= 0 && dev.batches == progress.batches_before + 3) stop = true;
  };
  const Result r = discover(dev, {}, progress, &stop);
  EXPECT_FALSE(r.completed);
  EXPECT_GT(progress.batches_before, 0);
  EXPECT_LE(dev.batches, progress.batches_before + 4);
  ASSERT_FALSE(r.timings.empty());
  EXPECT_EQ(r.timings.front().status, "ok");
  EXPECT_NE(r.timings.back().status.find("interrupted"), std::string::npos);
  EXPECT_FALSE(r.warnings.empty());
}

TEST(DiscoverFake, ZeroBudgetSkipsEverything) {
  FakeDevice dev;
  NullProgress progress;
  Options o;
  o.time_budget_s = 0.0;
  const Result r = discover(dev, o, progress, nullptr);
  EXPECT_FALSE(r.completed);
  EXPECT_EQ(dev.batches, 0);
}

TEST(DiscoverFake, MeasurementFailureIsRecordedPerProbe) {
  FakeDevice dev;
  dev.fail_measurements = true;
  NullProgress progress;
  Options o;
  o.only = {"shared"};
  const Result r = discover(dev, o, progress, nullptr);
  EXPECT_TRUE(r.failed);
  EXPECT_TRUE(r.completed);
  ASSERT_EQ(r.timings.size(), 2u);  // shared.latency (chases fail) and shared.bandwidth
  EXPECT_EQ(r.timings[0].probe, "shared.latency");
  EXPECT_EQ(r.timings[0].status.rfind("failed", 0), 0u);
}

// What a run that an error ended handed over.
struct StoppedBy final : Progress {
  std::optional<Result> so_far;
  void begin(std::string_view, std::size_t, std::size_t) override {}
  void advance(std::size_t, std::size_t) override {}
  void end(std::string_view, double, std::string_view, const Result*) override {}
  void stopped_by_error(const Result& r) override { so_far = r; }
};

// A result so far is put together only when the progress asks (this one never does), but a GPU
// lost in the run's last control measurement ends it with everything measured before.
TEST(DiscoverFake, ALostGpuHandsOverEverythingMeasuredBeforeIt) {
  Options o;
  o.only = {"l1"};
  FakeDevice whole(64 * 1024);
  NullProgress none;
  static_cast<void>(discover(whole, o, none, nullptr));
  FakeDevice dev(64 * 1024);
  dev.on_batch = [&] {
    if (dev.batches == whole.batches - 1)
      throw device::Error(device::Error::Kind::Lost, "fake GPU lost");
  };
  StoppedBy progress;
  EXPECT_THROW(static_cast<void>(discover(dev, o, progress, nullptr)), device::Error);
  ASSERT_TRUE(progress.so_far.has_value());
  const auto* size = attr(*progress.so_far, "l1", "size");
  ASSERT_NE(size, nullptr);
  EXPECT_TRUE(size->available()) << size->reason;
}

TEST(DiscoverFake, UnknownOnlyThrowsInvalidArgument) {
  FakeDevice dev;
  NullProgress progress;
  Options o;
  o.only = {"l7"};
  EXPECT_THROW(discover(dev, o, progress, nullptr), std::invalid_argument);
}

TEST(DiscoverFake, AMigInstanceIsReportedAsTheSliceItIs) {
  const auto mig_warning = [](const Result& r) {
    for (const auto& w : r.warnings)
      if (w.rfind("MIG mode is on", 0) == 0) return true;
    return false;
  };
  FakeDevice card;
  NullProgress progress;
  Options o;
  o.only = {"l1.fetch"};
  EXPECT_FALSE(mig_warning(discover(card, o, progress, nullptr)));
  FakeDevice slice;
  slice.edit_info().mig_enabled = true;
  EXPECT_TRUE(mig_warning(discover(slice, o, progress, nullptr)));
}

}  // namespace
}  // namespace gputopo::discovery
