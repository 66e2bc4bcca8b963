#include <gtest/gtest.h>

#include <memory>

#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "discovery/progress.hpp"
#include "forwarding_device.hpp"
#include "result_access.hpp"

// A one-SM near step that lies between two fractions of the API L2 size (on an H200, GPU-dd5b092d,
// one run in five put it at 24.58 MB, 0.39 of 62.9 MB): the segment count is then not established,
// and what reads it (l2.capacity, the far latency, the line) does not inherit a wrong count. Here
// the driver reports less L2 than the GPU has (2.4 or 2.6 segments of 3), which puts the step
// there.
namespace gputopo::discovery {
namespace {

using testing::attr;
using testing::number;

// The toy GPU with three segments of 512 KiB (the SMs spread over them in turn).
device::sim::SimConfig three_segments() {
  auto cfg = device::sim::load_config("toy");
  cfg.l2.segments = 3;
  cfg.l2.near_latency_by_segment.assign(3, cfg.l2.near_latency_cycles);
  cfg.l2.far_latency_by_segment.assign(3, cfg.l2.far_latency_cycles);
  for (std::size_t s = 0; s < cfg.l2.sm_segment.size(); ++s)
    cfg.l2.sm_segment[s] = static_cast<int>(s % 3);
  return cfg;
}

// A simulated GPU whose driver reports `api_bytes` of L2.
class ApiSizeDevice final : public testing::ForwardingDevice {
 public:
  ApiSizeDevice(const device::sim::SimConfig& cfg, std::uint64_t api_bytes, std::uint64_t seed)
      : ForwardingDevice(device::sim::make_device(cfg, seed)), info_(inner().info()) {
    info_.l2_bytes = api_bytes;
  }
  const device::DeviceInfo& info() const override { return info_; }

 private:
  device::DeviceInfo info_;
};

// The API size in sixteenths of a segment, and the simulator's seed.
struct Case {
  std::uint64_t api_sixteenths;
  std::uint64_t seed;
};

class L2StepBetweenFractions : public ::testing::TestWithParam<Case> {};

TEST_P(L2StepBetweenFractions, TheCountIsNotEstablishedAndItsReadersDoNotInheritIt) {
  const auto cfg = three_segments();
  const double segment = static_cast<double>(cfg.l2.geometry.size_bytes);
  const std::uint64_t api = cfg.l2.geometry.size_bytes * GetParam().api_sixteenths / 16;
  ApiSizeDevice dev(cfg, api, GetParam().seed);
  NullProgress progress;
  Options o;
  o.only = {"l2", "dram"};
  const Result r = discover(dev, o, progress, nullptr);

  const auto* count = attr(r, "l2", "segmentCount");
  ASSERT_NE(count, nullptr);
  ASSERT_TRUE(count->available()) << count->reason;
  EXPECT_LT(count->confidence.value_or(1), 0.5) << count->evidence.dump();
  EXPECT_EQ(count->evidence.value("candidateCounts", std::vector<int>{}), (std::vector<int>{2, 3}));
  EXPECT_NE(count->reason.find("neither count is established"), std::string::npos) << count->reason;
  const auto* size = attr(r, "l2", "segmentSize");
  ASSERT_NE(size, nullptr);
  EXPECT_LT(size->confidence.value_or(1), 0.5);
  ASSERT_TRUE(size->interval.has_value());
  EXPECT_LE(size->interval->lo, segment);
  EXPECT_GE(size->interval->hi, static_cast<double>(api) / 2);

  // The capacity one SM reaches: the DRAM step, found past the larger fraction (with three far
  // segments sharing the evicted lines unevenly, its onset comes before the whole L2).
  const auto* capacity = attr(r, "l2", "capacity");
  ASSERT_NE(capacity, nullptr);
  ASSERT_TRUE(capacity->available()) << capacity->reason;
  ASSERT_TRUE(capacity->interval.has_value());
  const double whole = static_cast<double>(cfg.l2_bytes());
  EXPECT_GT(number(capacity), static_cast<double>(api) / 2);
  EXPECT_LE(capacity->interval->lo, whole);

  // Both counts have far segments: the far level is measured past the larger fraction.
  const auto* far = attr(r, "l2", "farLatency");
  ASSERT_NE(far, nullptr);
  ASSERT_TRUE(far->available()) << far->reason;
  EXPECT_NEAR(number(far), cfg.l2.far_latency_cycles, 0.05 * cfg.l2.far_latency_cycles);
  const auto* line = attr(r, "l2", "lineSize");
  ASSERT_NE(line, nullptr);
  ASSERT_TRUE(line->available()) << line->reason;
  EXPECT_EQ(number(line), cfg.l2.geometry.line_bytes);
}

// The segment at 0.42 of the API size (nearer a half) and at 0.39 (nearer a third, as on the
// H200), each on two seeds.
INSTANTIATE_TEST_SUITE_P(Seeds, L2StepBetweenFractions,
                         ::testing::Values(Case{38, 3}, Case{38, 4}, Case{41, 3}, Case{41, 4}));

// The levels recorded on real GPUs (docs/results): the profile's level before its step against the
// size search's levels before and after the change it bracketed.
bool later(double profile_level, double before, double after) {
  StepProfile p;
  p.found = true;
  p.near_latency = profile_level;
  SizeSearchResult r;
  r.evidence["transition"] = {{"latencyBefore", before}, {"latencyAfter", after}};
  return !later_step(p, r).empty();
}

TEST(L2LaterStep, AProfileAtTheFarLevelFoundTheDramStep) {
  // Three H200s whose bracket jumped from the near level at 31.5 MB to device memory at 62.9 MB.
  EXPECT_TRUE(later(506, 290, 686));
  EXPECT_TRUE(later(552, 284, 698.5));
  EXPECT_TRUE(later(507, 286, 687));
  // The near step: H200 and H100 runs, one bracket with no latency change.
  EXPECT_FALSE(later(286, 278, 693.5));
  EXPECT_FALSE(later(278, 290, 510));
  EXPECT_FALSE(later(282, 255, 490));
  EXPECT_FALSE(later(290, 280, 280));
  StepProfile none;
  EXPECT_TRUE(later_step(none, SizeSearchResult{}).empty());
}

}  // namespace
}  // namespace gputopo::discovery
