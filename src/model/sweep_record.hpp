#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gputopo::model {

// One request of a device batch, as a point of its probe's plot.
struct SweepPoint {
  double bytes = 0;   // the array chased
  double stride = 0;  // bytes between its elements
  int sm = -1;        // the SM it ran on (-1: any)
  double median = 0;  // cycles per load, the timing overhead taken off
  double low = 0;     // 10th percentile of the same
  double high = 0;    // 90th percentile
};

// One chase batch of a probe: what the HTML report plots (report/html_writer.cpp). The JSON and
// text reports leave sweeps out; a report read back from JSON has none.
struct Sweep {
  std::string probe;  // e.g. "l1.size"
  std::string space;  // the space chased, e.g. "l1"
  std::vector<SweepPoint> points;
  // The findings the probe writes (element, key): a plot marks those that lie on its axes.
  std::vector<std::pair<std::string, std::string>> writes;
};

}  // namespace gputopo::model
