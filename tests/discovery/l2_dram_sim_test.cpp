#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/union_find.hpp"
#include "device/sim/chase_engine.hpp"
#include "device/sim/layout.hpp"
#include "device/sim/sim_device.hpp"
#include "discovery/discover.hpp"
#include "discovery/probes/l2/l2_sweep.hpp"
#include "result_access.hpp"

// End to end: the L2, device-memory and layout probes on every simulator preset, against the
// configuration's own truth. Discrete attributes exactly, continuous ones within 2 %.
namespace gputopo::discovery {
namespace {

using testing::attr;
using testing::number;

// Whether cluster groups of sizes 3..max cover every SM of a GPC of `n` SMs and join them: the
// simulator deals each cluster size's groups from the start of the GPC's SM list.
bool coverable(int n, int max_cluster) {
  analysis::DisjointSets sets(static_cast<std::size_t>(n));
  auto root = [&](int i) { return sets.find(static_cast<std::size_t>(i)); };
  std::vector<bool> covered(static_cast<std::size_t>(n), false);
  for (int c = 3; c <= max_cluster && c <= n; ++c)
    for (int first = 0; first + c <= n; first += c)
      for (int sm = first; sm < first + c; ++sm) {
        covered[static_cast<std::size_t>(sm)] = true;
        sets.join(static_cast<std::size_t>(sm), static_cast<std::size_t>(first));
      }
  for (int sm = 0; sm < n; ++sm)
    if (!covered[static_cast<std::size_t>(sm)] || root(sm) != root(0)) return false;
  return true;
}

// Bandwidth the simulator's stream model gives for a buffer (its formula, without jitter): the
// part in L2 at L2 bandwidth, the rest at DRAM bandwidth, at least 256 MiB per launch, plus the
// launch overhead.
double model_gbps(const device::sim::SimConfig& cfg, double bytes, double l2_gbps,
                  double dram_gbps) {
  const double in_l2 = std::min(1.0, static_cast<double>(cfg.l2_bytes()) / bytes);
  const double seconds = bytes * (in_l2 / l2_gbps + (1 - in_l2) / dram_gbps) / 1e9;
  const double passes = std::max(1.0, std::ceil(2048.0 * 1024 * 1024 / bytes));
  return bytes * passes / (seconds * passes + cfg.bandwidth.launch_overhead_us * 1e-6) / 1e9;
}

class L2DramSim : public ::testing::TestWithParam<std::string> {
 protected:
  // AMD's L2 per XCD, memory-side cache and memory are checked in amd_sim_test.cpp; the layout
  // (TPCs, GPCs) is NVIDIA's.
  void SetUp() override {
    if (device::sim::load_config(GetParam()).device.vendor == "AMD")
      GTEST_SKIP() << "AMD preset: see amd_sim_test.cpp";
  }
  static const testing::TimedResult& discovery(const std::string& preset) {
    return testing::discover_preset(preset, {"l2", "dram", "layout"});
  }
};

// The near->far step located in a profile of the far share (locate_step), on shapes seen on the
// simulator and on an H100. Sizes in units of 100 (one profile step: 1).
TEST(LocateStep, SharpStepIsAtItsLastNearSize) {
  const std::vector<double> x = {100, 101, 102, 103, 104, 105, 106};
  const auto s = locate_step(x, {0, 0, 0, 0.25, 0.25, 0.25, 0.25}, 270, 0.02, 0);
  ASSERT_TRUE(s.found);
  EXPECT_DOUBLE_EQ(s.onset, 102);
  EXPECT_DOUBLE_EQ(s.lo, 102);
  EXPECT_DOUBLE_EQ(s.hi, 103);
}

TEST(LocateStep, LinearRampStartsWhereTheRampStarts) {
  // An LRU-like ramp from 102 on, still rising at the end of the profile.
  const std::vector<double> x = {100, 101, 102, 103, 104, 105, 106};
  const auto s = locate_step(x, {0, 0, 0, 0.1, 0.2, 0.3, 0.4}, 270, 0.02, 0);
  ASSERT_TRUE(s.found);
  EXPECT_NEAR(s.onset, 102, 1e-9);
  EXPECT_DOUBLE_EQ(s.lo, 102);
  EXPECT_DOUBLE_EQ(s.hi, 106);
}

TEST(LocateStep, TrickleBeforeTheBulkIsNotTheStep) {
  // As on an H100: a few far hits from 101 on, the bulk between 104 and 106.
  const std::vector<double> x = {100, 101, 102, 103, 104, 105, 106, 107};
  const auto s = locate_step(x, {0, 0.02, 0.03, 0.04, 0.05, 0.45, 0.97, 0.97}, 270, 0.02, 0);
  ASSERT_TRUE(s.found);
  EXPECT_GT(s.onset, 104);
  EXPECT_LT(s.onset, 105);
  EXPECT_DOUBLE_EQ(s.lo, 104);
  EXPECT_DOUBLE_EQ(s.hi, 106);
}

TEST(LocateStep, NoRiseIsNotFound) {
  const std::vector<double> x = {100, 101, 102, 103};
  EXPECT_FALSE(locate_step(x, {0, 0.01, 0, 0.02}, 270, 0.02, 0).found);
  EXPECT_FALSE(locate_step({}, {}, 270, 0.02, 0).found);
}

TEST_P(L2DramSim, L2GeometryMatchesTheConfiguration) {
  const auto cfg = device::sim::load_config(GetParam());
  const testing::TimedResult& run = discovery(GetParam());
  const Result& r = run.result;
  RecordProperty("seconds", std::to_string(run.seconds));
  std::cout << GetParam() << ": l2/dram/layout discovery " << run.seconds << " s\n";
  ASSERT_TRUE(r.completed);
  EXPECT_FALSE(r.failed);
  for (const auto& t : r.timings) std::cout << "  " << t.probe << " " << t.seconds << " s\n";

  // Probes write no API value: the L2 and device-memory sizes are the info report's.
  EXPECT_EQ(attr(r, "l2", "size"), nullptr);
  EXPECT_EQ(attr(r, "dram", "size"), nullptr);
  EXPECT_EQ(attr(r, "shared", "size"), nullptr);
  EXPECT_EQ(attr(r, "dram", "peakBandwidth"), nullptr);
  EXPECT_EQ(number(attr(r, "l2", "lineSize")), cfg.l2.geometry.line_bytes);
  const auto* count = attr(r, "l2", "segmentCount");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(number(count), cfg.l2.segments) << count->reason;
  const auto* segment = attr(r, "l2", "segmentSize");
  ASSERT_NE(segment, nullptr);
  const double seg = static_cast<double>(cfg.l2.geometry.size_bytes);
  EXPECT_NEAR(number(segment), seg, 0.02 * seg);
  ASSERT_TRUE(segment->interval.has_value());
  EXPECT_GE(segment->confidence.value_or(0), 0.5);
  // The aligned value lies in its interval, which also holds the measured step.
  EXPECT_LE(segment->interval->lo, number(segment));
  EXPECT_GE(segment->interval->hi, number(segment));
  // The measured step itself, before alignment: within the search's finest step (1/64 of the L2),
  // inside its own interval, and inside the aligned value's interval.
  const auto* measured = attr(r, "l2", "measuredSegmentSize");
  ASSERT_NE(measured, nullptr);
  ASSERT_TRUE(measured->available()) << measured->reason;
  EXPECT_NEAR(number(measured), seg, static_cast<double>(cfg.l2_bytes()) / 64 + 0.01 * seg);
  EXPECT_EQ(number(measured), segment->evidence.value("measuredBytes", 0.0));
  ASSERT_TRUE(measured->interval.has_value());
  EXPECT_LE(measured->interval->lo, number(measured));
  EXPECT_GE(measured->interval->hi, number(measured));
  EXPECT_LE(segment->interval->lo, measured->interval->lo);
  EXPECT_GE(segment->interval->hi, measured->interval->hi);
  // The step as measured claims no more precision than its interval allows (docs/methods.md,
  // "Intervals"): the aligned segmentSize is the established value.
  EXPECT_LE(
      measured->confidence.value_or(0),
      model::precision_share(*measured->interval, number(measured), model::kSizePrecision) + 1e-12);
  // The measured capacity one SM reaches confirms the API size.
  const auto* capacity = attr(r, "l2", "capacity");
  ASSERT_NE(capacity, nullptr);
  EXPECT_TRUE(capacity->evidence.value("agrees", false)) << capacity->evidence.dump();
  EXPECT_EQ(segment->evidence.value("apiL2Bytes", 0.0), static_cast<double>(cfg.l2_bytes()));
}

// The fetch under the driver's default limit, and one sector with the limit at its minimum.
TEST_P(L2DramSim, FetchGranularityAndSectorMatchTheConfiguration) {
  const auto cfg = device::sim::load_config(GetParam());
  const Result& r = discovery(GetParam()).result;
  const auto* fetch = attr(r, "l2", "fetchGranularity");
  ASSERT_NE(fetch, nullptr);
  EXPECT_EQ(number(fetch), cfg.l2.geometry.fetch_bytes) << fetch->reason;
  EXPECT_EQ(fetch->evidence.value("l2FetchLimitBytes", 0u), cfg.l2.geometry.fetch_bytes);
  const auto* sector = attr(r, "l2", "sectorSize");
  ASSERT_NE(sector, nullptr);
  ASSERT_TRUE(sector->available()) << sector->reason;
  EXPECT_EQ(number(sector), cfg.l2.geometry.sector_bytes) << sector->reason;
  EXPECT_EQ(sector->source, model::Source::Measured);
  EXPECT_NE(sector->method.find("cudaLimitMaxL2FetchGranularity"), std::string::npos);
  EXPECT_EQ(sector->evidence.value("l2FetchLimitBytes", 0u), cfg.l2.geometry.sector_bytes);
  EXPECT_GE(sector->confidence.value_or(0), 0.5);
}

TEST_P(L2DramSim, LatenciesMatchTheConfiguration) {
  const auto cfg = device::sim::load_config(GetParam());
  const Result& r = discovery(GetParam()).result;
  device::sim::ChaseEngine engine(cfg);
  const double extra = cfg.space(device::Space::L2).extra_cycles;

  const auto* near = attr(r, "l2", "nearLatency");
  ASSERT_NE(near, nullptr);
  ASSERT_TRUE(near->available()) << near->reason;
  const int sm = near->evidence.value("sm", -1);
  ASSERT_GE(sm, 0);
  const double offset = engine.sm_l2_offset(sm) + extra;
  const double near_truth = cfg.l2.near_latency_cycles + offset;
  EXPECT_NEAR(number(near), near_truth, 0.02 * near_truth);
  EXPECT_NE(attr(r, "l2", "nearLatencyNs"), nullptr);

  const auto* far = attr(r, "l2", "farLatency");
  ASSERT_NE(far, nullptr);
  if (cfg.l2.segments > 1) {
    ASSERT_TRUE(far->available()) << far->reason;
    const double far_truth = cfg.l2.far_latency_cycles + offset;
    EXPECT_NEAR(number(far), far_truth, 0.02 * far_truth);
  } else {
    EXPECT_FALSE(far->available());
    EXPECT_FALSE(far->reason.empty());
  }

  const auto* dram = attr(r, "dram", "latency");
  ASSERT_NE(dram, nullptr);
  ASSERT_TRUE(dram->available()) << dram->reason;
  const double dram_truth =
      cfg.dram.latency_cycles + engine.sm_l2_offset(dram->evidence.value("sm", 0)) + extra;
  EXPECT_NEAR(number(dram), dram_truth, 0.02 * dram_truth);
  const double penalty_truth = cfg.dram.latency_cycles - cfg.l2.near_latency_cycles;
  EXPECT_NEAR(number(attr(r, "l2", "missPenalty")), penalty_truth, 0.04 * penalty_truth);

  // Per-SM spread: the slowest minus the fastest SM's offset.
  double lo = 1e9;
  double hi = -1e9;
  for (int s = 0; s < cfg.device.sm_count; ++s) {
    lo = std::min(lo, engine.sm_l2_offset(s));
    hi = std::max(hi, engine.sm_l2_offset(s));
  }
  const auto* by_sm = attr(r, "l2", "nearLatencyBySm");
  ASSERT_NE(by_sm, nullptr);
  ASSERT_TRUE(by_sm->available()) << by_sm->reason;
  EXPECT_NEAR(number(by_sm), hi - lo, 1.5);
}

TEST_P(L2DramSim, BandwidthFollowsTheStreamModel) {
  const auto cfg = device::sim::load_config(GetParam());
  const Result& r = discovery(GetParam()).result;
  const auto& bw = cfg.bandwidth;
  // A write-through L2 takes stores at most at device memory's write bandwidth.
  const double l2_write =
      cfg.l2.write_back ? bw.l2_write_gbps : std::min(bw.l2_write_gbps, bw.dram_write_gbps);
  struct Case {
    const char* element;
    const char* key;
    double l2;
    double dram;
  };
  for (const Case& c : {Case{"l2", "unsharedReadBandwidth", bw.l2_read_gbps, bw.dram_read_gbps},
                        Case{"l2", "writeBandwidth", l2_write, bw.dram_write_gbps},
                        Case{"dram", "readBandwidth", bw.l2_read_gbps, bw.dram_read_gbps},
                        Case{"dram", "writeBandwidth", l2_write, bw.dram_write_gbps}}) {
    SCOPED_TRACE(std::string(c.element) + "." + c.key);
    const auto* a = attr(r, c.element, c.key);
    ASSERT_NE(a, nullptr);
    ASSERT_TRUE(a->available()) << a->reason;
    const double bytes = a->evidence.value("bufferBytes", 0.0);
    const double want = model_gbps(cfg, bytes, c.l2, c.dram);
    EXPECT_NEAR(number(a), want, 0.05 * want);
    // Inside L2 the stream sees L2 bandwidth, far past it device-memory bandwidth.
    const double pure = std::string(c.element) == "l2" ? c.l2 : c.dram;
    EXPECT_NEAR(number(a), pure, 0.1 * pure);
  }
  // Every SM reading the same buffer: the preset's shared-set rate, or the plain one where it has
  // none.
  const auto* shared = attr(r, "l2", "sharedReadBandwidth");
  ASSERT_NE(shared, nullptr);
  ASSERT_TRUE(shared->available()) << shared->reason;
  const double shared_gbps = bw.l2_shared_read_gbps > 0 ? bw.l2_shared_read_gbps : bw.l2_read_gbps;
  EXPECT_NEAR(number(shared), shared_gbps, 0.1 * shared_gbps);
  EXPECT_NE(shared->method.find("every block reads the whole buffer"), std::string::npos);
  // The L2's read bandwidth is the faster pattern, and says which.
  const auto* fastest = attr(r, "l2", "readBandwidth");
  const auto* own = attr(r, "l2", "unsharedReadBandwidth");
  ASSERT_NE(fastest, nullptr);
  ASSERT_TRUE(fastest->available()) << fastest->reason;
  const bool shared_faster = number(shared) > number(own);
  EXPECT_DOUBLE_EQ(number(fastest), shared_faster ? number(shared) : number(own));
  EXPECT_EQ(fastest->evidence.value("pattern", ""), shared_faster ? "shared" : "unshared");
  ASSERT_TRUE(fastest->interval.has_value());
  EXPECT_DOUBLE_EQ(fastest->interval->lo, (shared_faster ? shared : own)->interval->lo);
  const auto* copy = attr(r, "dram", "copyBandwidth");
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->available());
  const double peak_truth =
      2.0 * cfg.device.mem_clock_max_mhz * cfg.device.memory_bus_width_bits / 8 / 1e3;
  EXPECT_NEAR(number(attr(r, "dram", "readFractionOfPeak")),
              100 * number(attr(r, "dram", "readBandwidth")) / peak_truth, 1e-6);
}

TEST_P(L2DramSim, LayoutMatchesTheConfiguration) {
  const auto cfg = device::sim::load_config(GetParam());
  const Result& r = discovery(GetParam()).result;
  const auto* tpcs = model::find(r.compute, "tpcCount");
  ASSERT_NE(tpcs, nullptr);
  ASSERT_TRUE(tpcs->available()) << tpcs->reason;
  EXPECT_EQ(number(tpcs), cfg.device.sm_count / cfg.layout.sms_per_tpc);
  EXPECT_EQ(number(model::find(r.compute, "smsPerTpc")), cfg.layout.sms_per_tpc);

  const auto topology = device::sim::build_topology(cfg.layout, cfg.device.sm_count);
  bool all_coverable = cfg.layout.max_cluster_size >= 2;
  for (const auto& sms : topology.cluster_units)
    all_coverable =
        all_coverable && coverable(static_cast<int>(sms.size()), cfg.layout.max_cluster_size);
  const auto* gpcs = model::find(r.compute, "gpcCount");
  ASSERT_NE(gpcs, nullptr);
  // Every SM placed shares its GPC with exactly the SMs the configuration puts there.
  if (gpcs->evidence.contains("gpcOfSm")) {
    const auto& of = gpcs->evidence["gpcOfSm"];
    ASSERT_EQ(of.size(), topology.gpc_of_sm.size());
    for (std::size_t i = 0; i < of.size(); ++i) {
      for (std::size_t j = i + 1; j < of.size(); ++j) {
        if (of[i].is_null() || of[j].is_null()) continue;
        EXPECT_EQ(of[i] == of[j], topology.gpc_of_sm[i] == topology.gpc_of_sm[j]) << i << " " << j;
      }
    }
  }
  const auto gpc_count = static_cast<double>(cfg.layout.gpc_tpcs.size());
  if (!gpcs->available()) {
    EXPECT_FALSE(all_coverable) << gpcs->reason;
    EXPECT_FALSE(gpcs->reason.empty());
    if (gpcs->evidence.contains("gpcCountInterval")) {
      EXPECT_LE(gpcs->evidence["gpcCountInterval"][0].get<double>(), gpc_count);
      EXPECT_GE(gpcs->evidence["gpcCountInterval"][1].get<double>(), gpc_count);
    }
    return;
  }
  EXPECT_EQ(number(gpcs), gpc_count);
  const auto* per = model::find(r.compute, "smsPerGpc");
  ASSERT_NE(per, nullptr);
  std::vector<int> got = per->value.get<std::vector<int>>();
  std::vector<int> want;
  for (const auto& sms : topology.gpc_sms) want.push_back(static_cast<int>(sms.size()));
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Presets, L2DramSim, ::testing::ValuesIn(device::sim::preset_names()),
                         [](const auto& p) {
                           std::string n = p.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace gputopo::discovery
