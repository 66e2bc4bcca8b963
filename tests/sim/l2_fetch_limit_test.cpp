#include <gtest/gtest.h>

#include "device/sim/sim_device.hpp"
#include "sim_test_util.hpp"

// The L2 fetch under a cudaLimitMaxL2FetchGranularity-like limit: rounding, clamping, the loads it
// changes, and what the conditions report.
namespace gputopo::device::sim {
namespace {
using test::chase_request;
using test::fraction_above;

// Cold loads at one-sector stride over 8 KiB of L2-only loads (no warm-up).
ChaseBatch cold_sector_stride(std::optional<std::uint32_t> limit) {
  ChaseBatch batch;
  auto r = chase_request(Space::L2, 256 * 32, 32, 256);
  r.warmup_passes = 0;
  batch.requests.push_back(r);
  batch.l2_fetch_limit_bytes = limit;
  return batch;
}

double dram_threshold(const SimConfig& cfg) {
  return (cfg.l2.near_latency_cycles + cfg.dram.latency_cycles) / 2 + cfg.overhead_cycles;
}

TEST(SimL2FetchLimit, RoundsUpToWholeSectorsWithinSectorAndConfiguredFetch) {
  const auto cfg = load_config("h100-sxm");
  ASSERT_EQ(cfg.l2.geometry.sector_bytes, 32u);
  ASSERT_EQ(cfg.l2.geometry.fetch_bytes, 64u);
  EXPECT_EQ(cfg.l2_fetch_bytes(std::nullopt), 64u);
  EXPECT_EQ(cfg.l2_fetch_bytes(0), 32u);
  EXPECT_EQ(cfg.l2_fetch_bytes(1), 32u);
  EXPECT_EQ(cfg.l2_fetch_bytes(32), 32u);
  EXPECT_EQ(cfg.l2_fetch_bytes(33), 64u);
  EXPECT_EQ(cfg.l2_fetch_bytes(128), 64u);

  auto wide = load_config("toy");
  wide.l2.geometry.sector_bytes = 16;
  wide.l2.geometry.fetch_bytes = 64;
  EXPECT_EQ(wide.l2_fetch_bytes(40), 64u);  // three sectors round up to a power of two: four
  EXPECT_EQ(wide.l2_fetch_bytes(17), 32u);
}

TEST(SimL2FetchLimit, TheLimitChangesTheMissesOfThatBatchOnly) {
  const auto cfg = load_config("h100-sxm");
  auto device = make_device(cfg, 5);
  const double threshold = dram_threshold(cfg);

  const auto by_default = device->chase(cold_sector_stride(std::nullopt));
  EXPECT_EQ(by_default.conditions.l2_fetch_limit_bytes, 64u);
  // A 64 B fetch brings the next sector along: every other load misses.
  EXPECT_NEAR(fraction_above(by_default.results[0].cycles, threshold), 0.5, 0.02);

  const auto lowered = device->chase(cold_sector_stride(0));
  EXPECT_EQ(lowered.conditions.l2_fetch_limit_bytes, 32u);
  EXPECT_NEAR(fraction_above(lowered.results[0].cycles, threshold), 1.0, 0.02);

  const auto raised = device->chase(cold_sector_stride(128));
  EXPECT_EQ(raised.conditions.l2_fetch_limit_bytes, 64u);  // never above the configured fetch

  const auto after = device->chase(cold_sector_stride(std::nullopt));
  EXPECT_EQ(after.conditions.l2_fetch_limit_bytes, 64u);
  EXPECT_NEAR(fraction_above(after.results[0].cycles, threshold), 0.5, 0.02);
}

TEST(SimL2FetchLimit, EveryResultReportsTheFetchInEffect) {
  const auto cfg = load_config("a100");
  auto device = make_device(cfg, 5);
  const auto fetch = cfg.l2.geometry.fetch_bytes;
  InterferenceBatch batch;
  InterferenceRequest r;
  r.a = chase_request(Space::L1, 4096, 128, 32);
  r.b = chase_request(Space::L1, 4096, 128, 32);
  batch.requests.push_back(r);
  EXPECT_EQ(device->interfere(batch).conditions.l2_fetch_limit_bytes, fetch);
  EXPECT_EQ(device->stream({StreamKind::Read, 1 << 20, 2, {}}).conditions.l2_fetch_limit_bytes,
            fetch);
}

TEST(SimL2FetchLimit, ALimitAbove128IsABadRequest) {
  auto device = open("toy", 1);
  EXPECT_NO_THROW(device->chase(cold_sector_stride(128)));
  try {
    device->chase(cold_sector_stride(129));
    FAIL() << "a 129 B limit was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::BadRequest);
    EXPECT_NE(std::string(e.what()).find("129"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gputopo::device::sim
