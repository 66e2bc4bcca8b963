#include <gtest/gtest.h>

#include <memory>

#include "device/sim/sim_device.hpp"
#include "discovery/context.hpp"
#include "discovery/progress.hpp"
#include "discovery/registry.hpp"
#include "forwarding_device.hpp"

// The L2 fetch probe's second sweep (limit at its minimum -> sectorSize) where the backend cannot
// set the limit or cannot run the batch: the sector size is then not measured, with the reason, and
// the fetch granularity is unaffected.
namespace gputopo::discovery {
namespace {

// The simulator, seen through a backend that lacks the L2 fetch limit in one of two ways.
class LimitlessDevice final : public testing::ForwardingDevice {
 public:
  enum class Lack { CannotReadOrSet, RefusesTheBatch };
  explicit LimitlessDevice(Lack lack)
      : ForwardingDevice(device::sim::open("toy", 3)), lack_(lack) {}

  device::ChaseBatchResult chase(const device::ChaseBatch& batch) override {
    if (batch.l2_fetch_limit_bytes) {
      ++limited_batches;
      if (lack_ == Lack::RefusesTheBatch)
        throw device::Error(device::Error::Kind::BadRequest, "no recorded chase call matches");
    }
    auto plain = batch;
    plain.l2_fetch_limit_bytes.reset();
    auto out = inner().chase(plain);
    out.conditions.l2_fetch_limit_bytes.reset();
    return out;
  }

  int limited_batches = 0;

 private:
  Lack lack_;
};

class L2SectorWithoutLimit : public ::testing::TestWithParam<LimitlessDevice::Lack> {};

TEST_P(L2SectorWithoutLimit, SectorSizeIsNotMeasuredAndSaysWhy) {
  LimitlessDevice device(GetParam());
  NullProgress progress;
  const Options options;
  Context context(device, options, progress, nullptr);
  const Context* ctx = &context;
  const auto fetch_probe = registered_probe(device.info(), "l2.fetch");
  ASSERT_NE(fetch_probe, nullptr);
  ASSERT_NO_THROW(fetch_probe->run(context));
  EXPECT_EQ(device.limited_batches, 1);

  const auto* fetch = ctx->get("l2", model::keys::fetchGranularity);
  ASSERT_NE(fetch, nullptr);
  ASSERT_TRUE(fetch->available()) << fetch->reason;
  EXPECT_EQ(fetch->value.get<double>(), device::sim::load_config("toy").l2.geometry.fetch_bytes);
  EXPECT_FALSE(fetch->evidence.contains("l2FetchLimitBytes"));

  const auto* sector = ctx->get("l2", model::keys::sectorSize);
  ASSERT_NE(sector, nullptr);
  EXPECT_FALSE(sector->available());  // never the fetch granularity copied over
  EXPECT_EQ(sector->source, model::Source::Measured);
  const std::string want =
      GetParam() == LimitlessDevice::Lack::CannotReadOrSet ? "cannot set" : "could not run";
  EXPECT_NE(sector->reason.find(want), std::string::npos) << sector->reason;
}

INSTANTIATE_TEST_SUITE_P(Backends, L2SectorWithoutLimit,
                         ::testing::Values(LimitlessDevice::Lack::CannotReadOrSet,
                                           LimitlessDevice::Lack::RefusesTheBatch),
                         [](const auto& p) {
                           return p.param == LimitlessDevice::Lack::CannotReadOrSet
                                      ? "CannotReadOrSet"
                                      : "RefusesTheBatch";
                         });

// Only the L2 target runs the second sweep: the limit means nothing to an SM-private cache.
TEST(L2Sector, OtherTargetsRunOneSweep) {
  LimitlessDevice device(LimitlessDevice::Lack::RefusesTheBatch);
  NullProgress progress;
  const Options options;
  Context ctx(device, options, progress, nullptr);
  const auto fetch_probe = registered_probe(device.info(), "l1.fetch");
  ASSERT_NE(fetch_probe, nullptr);
  fetch_probe->run(ctx);
  EXPECT_EQ(device.limited_batches, 0);
  EXPECT_NE(ctx.get("l1", model::keys::fetchGranularity), nullptr);
  EXPECT_EQ(ctx.get("l1", model::keys::sectorSize), nullptr);
}

}  // namespace
}  // namespace gputopo::discovery
