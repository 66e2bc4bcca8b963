#include "report/text_writer.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "fake_device.hpp"
#include "model/info_report.hpp"
#include "report/format.hpp"
#include "report/summary_text.hpp"

namespace gputopo::report {
namespace {

std::string text_of(const model::Report& r) {
  std::ostringstream out;
  write_text(out, r);
  return out.str();
}

std::string line_with(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find("  " + label + "  ") != std::string::npos) return line;
  return "";
}

TEST(TextWriter, FullInfoOfAFakeDeviceHasEveryAttributeInNaturalUnits) {
  const device::DeviceInfo info = test::h100_like_info();
  const model::Report report = make_info_report(info);
  const std::string text = text_of(report);
  EXPECT_GE(report.device.size() + report.compute.size(), 40u);
  for (const auto* list : {&report.device, &report.compute})
    for (const auto& [key, a] : *list) EXPECT_NE(line_with(text, label_for(key)), "") << key;
  EXPECT_NE(line_with(text, "L2 size").find("50 MiB"), std::string::npos);
  EXPECT_NE(line_with(text, "Memory size").find("79.19 GiB"), std::string::npos);
  EXPECT_NE(line_with(text, "SM clock max").find("1980 MHz"), std::string::npos);
  EXPECT_NE(line_with(text, "Cores per SM").find("[table]"), std::string::npos);
  EXPECT_NE(line_with(text, "Power limit").find("not available: NVML"), std::string::npos);
  EXPECT_NE(line_with(text, "Max block dim").find("1024 x 1024 x 64"), std::string::npos);
  EXPECT_NE(text.find("General\n"), std::string::npos);
  EXPECT_NE(text.find("\nCompute\n"), std::string::npos);
  EXPECT_NE(text.find("\nMemory\n"), std::string::npos);
  EXPECT_EQ(text.find("SIMULATED"), std::string::npos);
}

TEST(TextWriter, ValuesAreAligned) {
  const std::string text = text_of(make_info_report(test::h100_like_info()));
  const std::string a = line_with(text, "Name");
  const std::string b = line_with(text, "Shared memory reserved per block");
  ASSERT_NE(a, "");
  ASSERT_NE(b, "");
  EXPECT_EQ(a.find("NVIDIA H100"), b.find("1 KiB"));
}

TEST(TextWriter, SimulatedDeviceGetsALoudBanner) {
  device::DeviceInfo info = test::h100_like_info();
  info.simulated = true;
  model::Report r = make_info_report(info);
  r.run.sim = model::Simulation{"h100-sxm", 1};
  const std::string text = text_of(r);
  EXPECT_EQ(text.rfind("####", 0), 0u);
  EXPECT_NE(text.find("SIMULATED GPU"), std::string::npos);
  EXPECT_NE(text.find("(h100-sxm)"), std::string::npos);
}

TEST(TextWriter, MeasuredValuesShowConfidenceAndInterval) {
  model::Report r = make_info_report(test::h100_like_info());
  auto size = model::Attribute::measured(245760, "B", "pchase-size-sweep", 0.97);
  size.interval = model::Interval{243712, 247808};
  r.memory.push_back({"l1", {{"size", size}}});
  r.run.status = "interrupted";
  r.warnings.push_back("the SM clock changed during the run");
  const std::string text = text_of(r);
  const std::size_t at = text.find("\n  L1\n    Size  ");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string line = text.substr(at + 6, text.find('\n', at + 6) - at - 6);
  EXPECT_NE(line.find("240 KiB (238-242 KiB)"), std::string::npos) << line;
  EXPECT_NE(line.find("[measured 0.97]"), std::string::npos) << line;
  EXPECT_NE(text.find("PARTIAL RESULTS"), std::string::npos);
  EXPECT_NE(text.find("  - the SM clock changed"), std::string::npos);
}

TEST(TextWriter, OpenIntervalReadsAsABound) {
  model::Report r = make_info_report(test::h100_like_info());
  auto size = model::Attribute::measured(65536, "B", "pchase-size-sweep (lower bound)", 0.0);
  size.interval = model::Interval{65536, std::numeric_limits<double>::infinity()};
  r.memory.push_back({"constantL15", {{"size", size}}});
  const std::string text = text_of(r);
  EXPECT_NE(text.find("at least 64 KiB"), std::string::npos) << text;
}

// Intervals read naturally (issue 34): no interval that says nothing more, a bound as a bound,
// the unit once.
TEST(TextWriter, IntervalsReadNaturally) {
  model::Attribute a = model::Attribute::measured(128, "B", "chase", 1);
  a.interval = model::Interval{128, 255};
  EXPECT_EQ(attribute_text(a), "128 B (128-255 B)");
  a.interval = model::Interval{128, 128};
  EXPECT_EQ(attribute_text(a), "128 B");
  model::Attribute bound = model::Attribute::measured(65536, "B", "chase", 0);
  bound.interval = model::Interval{65536, std::numeric_limits<double>::infinity()};
  EXPECT_EQ(attribute_text(bound), "at least 64 KiB");
  EXPECT_EQ(provenance_mark(bound), "[measured, a bound]");
}

// The summary's footnote: what was not established, grouped by reason, each reason in one line,
// the flag that would measure it named.
TEST(TextWriter, SummaryFootnoteGroupsReasonsAndNamesTheFlag) {
  model::Report r = make_info_report(test::h100_like_info());
  const std::string whole(400, 'x');
  r.compute.push_back({"gpcCount", model::Attribute::unavailable(model::Source::Measured, "",
                                                                 "clusters never met; " + whole)});
  model::Element l1{"l1", {}};
  for (const char* key : {"associativity", "sets"})
    l1.attributes.push_back({key, model::Attribute::unavailable(
                                      model::Source::Measured, "",
                                      "not established: needs --depth full (docs/discovery.md)")});
  r.memory.push_back(l1);
  const auto note = not_measured_note(r);
  std::string text;
  for (const auto& line : note) {
    EXPECT_LE(line.size(), 100u) << line;
    text += line + "\n";
  }
  EXPECT_NE(text.find("GPC count: clusters never met\n"), std::string::npos) << text;
  EXPECT_NE(text.find("associativity, sets of L1: needs --depth full"), std::string::npos) << text;
  EXPECT_EQ(text.find("xxxx"), std::string::npos);
}

}  // namespace
}  // namespace gputopo::report
