#include "model/plausibility.hpp"

#include <gtest/gtest.h>

#include "model/device_info.hpp"
#include "model/info_report.hpp"

namespace gputopo::model {
namespace {

Attribute measured(double v, const std::string& unit) {
  return Attribute::measured(v, unit, "a chase", 0.9);
}

const Attribute& in(const Report& r, const std::string& element, const std::string& key) {
  for (const auto& e : r.memory)
    if (e.key == element)
      if (const Attribute* a = find(e.attributes, key)) return *a;
  throw std::runtime_error(element + "." + key + " missing");
}

TEST(Plausibility, ANegativeQuantityIsNotPhysical) {
  EXPECT_NE(implausible(measured(-95.47, "cycles")).find("negative"), std::string::npos);
  EXPECT_EQ(implausible(measured(0, "cycles")), "");
  // A plain count may be a marker: no NUMA node is -1.
  EXPECT_EQ(implausible(Attribute::api(-1)), "");
}

TEST(Plausibility, AValueBeyondAnyHardwareIsNotPhysical) {
  EXPECT_NE(implausible(measured(1.8e19, "GB/s")).find("beyond any hardware"), std::string::npos);
  EXPECT_EQ(implausible(measured(32516, "GB/s")), "");
  EXPECT_NE(implausible(Attribute::api(Json::array({1, 2e6}), "MHz")).find("beyond"),
            std::string::npos);
}

// Issue 32 rows 5 and 7: a negative DRAM latency and a negative clock from the driver.
TEST(Plausibility, RefusedValuesAreNotEstablishedWithTheReasonAndKeepTheValueAsEvidence) {
  Report r;
  r.device.emplace_back("smClockMax", Attribute::api(-1980, "MHz"));
  r.memory.push_back({"dram", {{"latency", measured(-95.47, "cycles")}}});
  refuse_implausible(r);
  const Attribute& clock = r.device.front().second;
  EXPECT_FALSE(clock.available());
  EXPECT_NE(clock.reason.find("cannot be physical: -1980 MHz is negative"), std::string::npos)
      << clock.reason;
  EXPECT_EQ(clock.evidence["implausibleValue"], -1980);
  const Attribute& latency = in(r, "dram", "latency");
  EXPECT_FALSE(latency.available());
  EXPECT_FALSE(latency.confidence.has_value());
}

DeviceInfo small_memory(double clock_mhz, int bus_bits) {
  DeviceInfo d;
  d.mem_clock_max_mhz = clock_mhz;
  d.memory_bus_width_bits = bus_bits;
  return d;
}

// Issue 32 row 9: a read bandwidth six times the peak the clock and bus width allow.
TEST(Plausibility, ABandwidthAboveTheDerivedPeakBeyondItsUncertaintyIsRefused) {
  Report r = make_info_report(small_memory(500, 128));  // 16 GB/s peak
  const Attribute& peak = in(r, "dram", "peakBandwidth");
  ASSERT_TRUE(peak.interval.has_value());
  EXPECT_NEAR(peak.interval->hi, 16.016, 1e-9);
  for (auto& e : r.memory)
    if (e.key == "dram") {
      e.attributes.emplace_back("readBandwidth", measured(105.3, "GB/s"));
      e.attributes.emplace_back("writeBandwidth", measured(16.01, "GB/s"));  // within
      e.attributes.emplace_back("readFractionOfPeak", measured(658.4, "%"));
    }
  refuse_implausible(r);
  EXPECT_FALSE(in(r, "dram", "readBandwidth").available());
  EXPECT_NE(in(r, "dram", "readBandwidth").reason.find("above the derived peak 16 GB/s"),
            std::string::npos)
      << in(r, "dram", "readBandwidth").reason;
  EXPECT_TRUE(in(r, "dram", "writeBandwidth").available());
  EXPECT_FALSE(in(r, "dram", "readFractionOfPeak").available());
  EXPECT_TRUE(in(r, "dram", "peakBandwidth").available());
}

// The MI300X's driver gives HBM3's clock at a quarter of its data rate: 4.3 TB/s is physical there.
TEST(Plausibility, AnAmdPeakMayBeTwiceTheDoubleDataRateOne) {
  DeviceInfo d = small_memory(1300, 8192);
  d.vendor = "AMD";
  Report r = make_info_report(d);
  for (auto& e : r.memory)
    if (e.key == "dram") e.attributes.emplace_back("readBandwidth", measured(4300, "GB/s"));
  refuse_implausible(r);
  EXPECT_TRUE(in(r, "dram", "readBandwidth").available());
}

}  // namespace
}  // namespace gputopo::model
