#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "report/html_assets.hpp"
#include "report/html_plots.hpp"
#include "report/writers.hpp"

namespace gputopo::report {
namespace {

model::SweepPoint point(double bytes, double stride, int sm, double median) {
  return {bytes, stride, sm, median, median - 1, median + 5};
}

// A size search: a bracket and two rounds over array sizes, and the size and latency it found.
model::Report sized_report() {
  model::Report r;
  r.device.emplace_back("name", model::Attribute::api("Test <GPU>"));
  auto size = model::Attribute::measured(4096.0, "B", "pchase", 0.9);
  size.interval = model::Interval{4000, 4200};
  r.memory.push_back({"l1",
                      {{"size", size},
                       {"latency", model::Attribute::measured(30.0, "cycles", "chain", 1)},
                       {"lineSize", model::Attribute::measured(128.0, "B", "stride", 1)}}});
  r.memory.push_back({"dram",
                      {{"readBandwidth", model::Attribute::measured(3000.0, "GB/s", "stream", 1)},
                       {"peakBandwidth", model::Attribute{}}}});
  r.memory.back().attributes[1].second.value = 3352.0;
  r.memory.back().attributes[1].second.unit = "GB/s";
  r.memory.back().attributes[1].second.source = model::Source::Derived;
  model::Sweep bracket{"l1.size", "l1", {}, {{"l1", "size"}, {"l1", "latency"}}};
  for (double b = 512; b <= 65536; b *= 2)
    bracket.points.push_back(point(b, 32, -1, b > 4096 ? 300 : 30));
  auto round = bracket;
  round.points.clear();
  for (double b = 3584; b <= 5120; b += 128)
    round.points.push_back(point(b, 32, 0, b > 4096 ? 300 : 30));
  r.sweeps = {bracket, round, round};
  model::Sweep line{"l1.line", "l1", {}, {{"l1", "lineSize"}}};
  for (double s = 32; s <= 1024; s *= 2) line.points.push_back(point(8192, s, -1, 100));
  r.sweeps.push_back(line);
  model::Sweep per_sm{"l2.smLatency", "l2", {}, {}};
  for (int sm = 0; sm < 8; ++sm) per_sm.points.push_back(point(1 << 20, 64, sm, 200 + sm));
  r.sweeps.push_back(per_sm);
  return r;
}

TEST(HtmlPlots, OnePlotPerProbeInRunOrderWithTheAxisThatVaried) {
  const auto plots = build_plots(sized_report());
  ASSERT_EQ(plots.size(), 3u);
  EXPECT_EQ(plots[0].probe, "l1.size");
  EXPECT_EQ(plots[0].batches, 3u);
  EXPECT_EQ(plots[0].x_label, "array size");
  EXPECT_TRUE(plots[0].x_bytes);
  EXPECT_TRUE(plots[0].x_log);
  ASSERT_EQ(plots[0].series.size(), 6u);  // median and 90th percentile per batch
  EXPECT_FALSE(plots[0].series[0].faint);
  EXPECT_TRUE(plots[0].series[1].faint);
  EXPECT_EQ(plots[0].points, 8u + 13u + 13u);
  EXPECT_EQ(plots[1].x_label, "stride");
  EXPECT_EQ(plots[2].x_label, "SM");
  EXPECT_FALSE(plots[2].x_bytes);
  for (const auto& s : plots[0].series) EXPECT_TRUE(std::is_sorted(s.xy.begin(), s.xy.end()));
}

TEST(HtmlPlots, FindingsAreMarkedWhereTheyLieOnAnAxis) {
  const auto plots = build_plots(sized_report());
  ASSERT_EQ(plots[0].marks.size(), 2u);
  EXPECT_EQ(plots[0].marks[0].axis, "x");
  EXPECT_EQ(plots[0].marks[0].value, 4096);
  EXPECT_EQ(plots[0].marks[0].lo, 4000);
  EXPECT_EQ(plots[0].marks[0].hi, 4200);
  EXPECT_EQ(plots[0].marks[0].label, "L1 size: 4 KiB");
  EXPECT_EQ(plots[0].marks[1].axis, "y");
  EXPECT_EQ(plots[0].marks[1].value, 30);
  ASSERT_EQ(plots[1].marks.size(), 1u);  // the line size along the stride axis
  EXPECT_EQ(plots[1].marks[0].value, 128);
  EXPECT_TRUE(plots[2].marks.empty());
}

TEST(HtmlPlots, ManyBatchesBecomeOneSeriesAndLongSeriesAreThinned) {
  model::Report r = sized_report();
  r.sweeps.resize(1);
  for (int i = 0; i < 9; ++i) r.sweeps.push_back(r.sweeps.front());
  const auto plots = build_plots(r, 6, 20);
  ASSERT_EQ(plots.size(), 1u);
  ASSERT_EQ(plots[0].series.size(), 2u);
  EXPECT_EQ(plots[0].series[0].label, "all 10 batches: median");
  EXPECT_LE(plots[0].series[0].xy.size(), 21u);
  EXPECT_EQ(plots[0].series[0].xy.back().first, 65536);
}

TEST(HtmlPlots, BandwidthBarsAreTheMeasuredOnesAndThePeak) {
  const auto bars = bandwidth_bars(sized_report());
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_EQ(bars[0].label, "DRAM read bandwidth");
  EXPECT_FALSE(bars[0].peak);
  EXPECT_TRUE(bars[1].peak);
  EXPECT_EQ(bars[1].gbps, 3352);
}

std::string html_of(const model::Report& r) {
  std::ostringstream out;
  find_writer("html")->write(out, r);
  return out.str();
}

TEST(HtmlWriter, PageIsSelfContainedWithACanvasPerPlotAndTheData) {
  const std::string page = html_of(sized_report());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_NE(page.find("Chart.js v3"), std::string::npos);
  EXPECT_NE(page.find(std::string(html_asset("page.js")).substr(0, 60)), std::string::npos);
  const std::regex canvas("<canvas data-plot=\"[0-9]+\"");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(page.begin(), page.end(), canvas), std::sregex_iterator()),
      3);
  EXPECT_NE(page.find("<canvas data-plot=\"bandwidth\""), std::string::npos);
  EXPECT_NE(page.find("Test &lt;GPU&gt;"), std::string::npos);  // escaped in the text
  EXPECT_EQ(page.find("Test <GPU>"), std::string::npos);
}

TEST(HtmlWriter, DataCannotCloseItsScriptElement) {
  model::Report r = sized_report();
  r.sweeps[0].probe = "</script><b>";
  const std::string page = html_of(r);
  const auto data = page.find("<script id=\"gputopo-data\"");
  ASSERT_NE(data, std::string::npos);
  const auto end = page.find("</script>", data);
  EXPECT_NE(page.substr(data, end - data).find("\\u003c/script>"), std::string::npos);
}

TEST(HtmlWriter, ReportWithoutSweepsSaysWhereThePlotsComeFrom) {
  model::Report r = sized_report();
  r.sweeps.clear();
  const std::string page = html_of(r);
  EXPECT_NE(page.find("No sweeps"), std::string::npos);
  EXPECT_EQ(page.find("<canvas data-plot=\"0\""), std::string::npos);
}

TEST(HtmlWriter, PreformattedBlocksKeepTheirLineEnds) {
  const std::string page = html_of(sized_report());
  const auto tables = page.find("<pre class=\"tables\">");
  ASSERT_NE(tables, std::string::npos);
  const std::string block = page.substr(tables, page.find("</pre>", tables) - tables);
  EXPECT_NE(block.find('\n'), std::string::npos);
  EXPECT_EQ(block.find("\\n"), std::string::npos);  // no line end written as text
}

TEST(HtmlWriter, SlicesWithALatencyFromEachSmGetAMap) {
  model::Report r = sized_report();
  EXPECT_EQ(html_of(r).find("data-plot=\"slices\""), std::string::npos);
  r.topology.slice_sms = {0, 4};
  r.topology.slices = {{0, std::nullopt, {0}, 0.9, {300, 420}},
                       {1, std::nullopt, {4}, 0.9, {430, 310}}};
  const std::string page = html_of(r);
  EXPECT_NE(page.find("<canvas data-plot=\"slices\""), std::string::npos);
  EXPECT_NE(page.find("\"slices\":{\"sms\":[0,4],\"slices\":[0,1],\"cycles\":[[300.0,430.0],[420.0,"
                      "310.0]]}"),
            std::string::npos);
  // A slice without a latency from every SM: no map.
  r.topology.slices[1].cycles.pop_back();
  EXPECT_EQ(html_of(r).find("data-plot=\"slices\""), std::string::npos);
}

}  // namespace
}  // namespace gputopo::report
