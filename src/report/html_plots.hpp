#pragma once

#include <string>
#include <vector>

#include "model/report.hpp"

// What the HTML report plots, built from the report alone: one plot per probe that chased, its
// batches as series, and the probe's findings marked where they lie on an axis.
namespace gputopo::report {

struct PlotSeries {
  std::string label;                          // "batch 2: median"
  std::vector<std::pair<double, double>> xy;  // sorted by x
  bool faint = false;                         // the 90th percentiles beside the medians
};

// A finding drawn on a plot: a vertical line (axis "x") with its interval, or a level ("y").
struct PlotMark {
  std::string axis;
  double value = 0;
  double lo = 0;
  double hi = 0;
  std::string label;  // "l1 size: 240 KiB"
};

struct Plot {
  std::string probe;
  std::string space;
  std::string x_label;   // "array (B)", "stride (B)", "SM", "request"
  bool x_bytes = false;  // x in bytes: the page formats ticks as KiB, MiB
  bool x_log = false;
  std::vector<PlotSeries> series;
  std::vector<PlotMark> marks;
  std::size_t batches = 0;
  std::size_t points = 0;
};

// The plots of `report.sweeps`, in the order the probes first ran. A probe's batches beyond the
// first `max_series` are drawn as one series; each series keeps at most `max_points` points.
std::vector<Plot> build_plots(const model::Report& report, std::size_t max_series = 6,
                              std::size_t max_points = 2000);

// One bar per measured bandwidth (unit GB/s) of the memory elements, and the DRAM peak.
struct BandwidthBar {
  std::string label;  // "DRAM read bandwidth"
  double gbps = 0;
  bool peak = false;  // the derived peak, not a measurement
};
std::vector<BandwidthBar> bandwidth_bars(const model::Report& report);

}  // namespace gputopo::report
