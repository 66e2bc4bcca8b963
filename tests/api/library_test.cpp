// libgputopo's interface, as a program that links the shared library uses it.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <gputopo/gputopo.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

TEST(Library, DiscoversASimulatedGpuAndReadsTypedValues) {
  gputopo::Device device = gputopo::Device::simulated("toy");
  EXPECT_FALSE(device.name().empty());
  std::vector<std::string> phases;
  gputopo::DiscoverOptions options;
  options.only = {"l1"};
  options.on_progress = [&](const gputopo::Progress& p) {
    EXPECT_LT(p.index, p.count);
    phases.push_back(p.phase);
  };
  const gputopo::Report report = device.discover(options);
  EXPECT_TRUE(report.simulated());
  ASSERT_FALSE(phases.empty());
  EXPECT_EQ(phases.front(), "l1.cached");
  const gputopo::Value size = report.get("l1", "size");
  ASSERT_TRUE(size.available) << size.reason;
  EXPECT_EQ(size.unit, "B");
  EXPECT_EQ(size.source, "measured");
  ASSERT_TRUE(size.number && size.confidence && size.interval);
  EXPECT_LE(size.interval->first, *size.number);
  EXPECT_GE(size.interval->second, *size.number);
  EXPECT_FALSE(size.text.empty());
  EXPECT_EQ(report.number("l1", "size"), size.number);
  EXPECT_EQ(report.get("device", "vendor").text, "NVIDIA");
  const auto elements = report.elements();
  EXPECT_NE(std::find(elements.begin(), elements.end(), "l1"), elements.end());
  EXPECT_FALSE(report.keys("compute").empty());
  const auto json = nlohmann::json::parse(report.json());
  EXPECT_EQ(json["memory"]["l1"]["size"]["value"].get<double>(), *size.number);
  // Put together as the CLI's reports are: the tool section, and the findings' guard cost.
  EXPECT_EQ(json["tool"]["name"], "gputopo");
  EXPECT_EQ(json["run"]["command"], "library");
  EXPECT_TRUE(json["run"]["guard"].contains("checkpoints"));
  EXPECT_TRUE(json["run"]["disturbed"].empty());
  EXPECT_NE(report.text().find("SIMULATED"), std::string::npos);
}

TEST(Library, WhatTheReportLacksIsUnavailableWithItsReason) {
  const gputopo::Report info = gputopo::Device::simulated("toy").info();
  const gputopo::Value missing = info.get("l1", "size");
  EXPECT_FALSE(missing.available);
  EXPECT_NE(missing.reason.find("no section or element l1"), std::string::npos);
  EXPECT_FALSE(info.number("compute", "noSuchKey"));
  EXPECT_NE(info.get("compute", "noSuchKey").reason.find("noSuchKey"), std::string::npos);
  ASSERT_TRUE(info.number("compute", "smCount"));
}

TEST(Library, BadInputIsAnErrorOfItsKind) {
  const auto kind_of = [](auto&& f) {
    try {
      f();
    } catch (const gputopo::Error& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      return e.kind();
    }
    ADD_FAILURE() << "no error";
    return gputopo::Error::Kind::Measurement;
  };
  EXPECT_EQ(kind_of([] { gputopo::Device::simulated("no-such-preset"); }),
            gputopo::Error::Kind::Usage);
  EXPECT_EQ(kind_of([] { gputopo::Device::recording("/nonexistent/recording"); }),
            gputopo::Error::Kind::Usage);
  EXPECT_EQ(kind_of([] {
              gputopo::DiscoverOptions o;
              o.only = {"no-such-element"};
              gputopo::Device::simulated("toy").discover(o);
            }),
            gputopo::Error::Kind::Usage);
  EXPECT_FALSE(gputopo::version().empty());
}

// Issue 32 row 21: a Device moved from is an error, not a crash.
TEST(Library, ADeviceMovedFromIsAUsageError) {
  gputopo::Device device = gputopo::Device::simulated("toy");
  gputopo::Device taken = std::move(device);
  EXPECT_FALSE(taken.name().empty());
  for (const auto& use : std::vector<std::function<void()>>{
           [&] { (void)device.name(); },  // NOLINT(bugprone-use-after-move): the case under test
           [&] { (void)device.info(); }, [&] { (void)device.discover(); }}) {
    try {
      use();
      ADD_FAILURE() << "no error";
    } catch (const gputopo::Error& e) {
      EXPECT_EQ(e.kind(), gputopo::Error::Kind::Usage);
      EXPECT_NE(std::string(e.what()).find("moved from"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
