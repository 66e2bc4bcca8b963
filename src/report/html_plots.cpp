#include "report/html_plots.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "report/format.hpp"

namespace gputopo::report {
namespace {

enum class XAxis { Bytes, Stride, Sm, Request };

// The request field that varies across a probe's points: the array size, else the stride, else
// the SM, else the request's number.
XAxis choose_axis(const std::vector<const model::Sweep*>& sweeps) {
  std::set<double> bytes, strides;
  std::set<int> sms;
  for (const auto* s : sweeps)
    for (const auto& p : s->points) {
      bytes.insert(p.bytes);
      strides.insert(p.stride);
      sms.insert(p.sm);
    }
  if (bytes.size() > 1) return XAxis::Bytes;
  if (strides.size() > 1) return XAxis::Stride;
  if (sms.size() > 1 && !sms.contains(-1)) return XAxis::Sm;
  return XAxis::Request;
}

double x_of(XAxis axis, const model::SweepPoint& p, std::size_t request) {
  switch (axis) {
    case XAxis::Bytes:
      return p.bytes;
    case XAxis::Stride:
      return p.stride;
    case XAxis::Sm:
      return p.sm;
    case XAxis::Request:
      break;
  }
  return static_cast<double>(request);
}

// Every k-th point, so that at most `max_points` remain (the last one kept).
void thin(std::vector<std::pair<double, double>>& xy, std::size_t max_points) {
  if (xy.size() <= max_points || max_points < 2) return;
  const std::size_t k = (xy.size() + max_points - 2) / (max_points - 1);
  std::vector<std::pair<double, double>> kept;
  for (std::size_t i = 0; i < xy.size(); i += k) kept.push_back(xy[i]);
  if (kept.back() != xy.back()) kept.push_back(xy.back());
  xy = std::move(kept);
}

// The median and 90th-percentile series of `batches` (one pair, labelled `name`).
void add_series(Plot& plot, XAxis axis, const std::vector<const model::Sweep*>& batches,
                const std::string& name, std::size_t& request, std::size_t max_points) {
  PlotSeries median{name + ": median", {}, false};
  PlotSeries high{name + ": 90th percentile", {}, true};
  for (const auto* s : batches)
    for (const auto& p : s->points) {
      const double x = x_of(axis, p, request++);
      median.xy.emplace_back(x, p.median);
      high.xy.emplace_back(x, p.high);
    }
  for (auto* s : {&median, &high}) {
    std::stable_sort(s->xy.begin(), s->xy.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    thin(s->xy, max_points);
  }
  plot.points += median.xy.size();
  plot.series.push_back(std::move(median));
  plot.series.push_back(std::move(high));
}

// "L1" and "size" -> "L1 size"; an acronym keeps its capitals ("DRAM" and "smClock" -> "DRAM SM
// clock").
std::string phrase(const std::string& element, const std::string& key) {
  std::string name = label_for(key);
  const bool acronym = name.size() > 1 && !std::islower(static_cast<unsigned char>(name[1]));
  if (!name.empty() && !acronym) name[0] = static_cast<char>(std::tolower(name[0]));
  return label_for(element) + " " + name;
}

const model::Attribute* find_finding(const model::Report& r, const std::string& element,
                                     const std::string& key) {
  for (const auto& e : r.memory)
    if (e.key == element) return model::find(e.attributes, key);
  return model::find(r.compute, key);
}

// The probe's findings that lie on the plot: sizes along a byte axis within reach of the data,
// latencies as levels.
void add_marks(Plot& plot, const model::Report& report, const model::Sweep& sweep, double x_min,
               double x_max) {
  for (const auto& [element, key] : sweep.writes) {
    const auto* a = find_finding(report, element, key);
    if (a == nullptr || !a->available() || !a->value.is_number()) continue;
    const double v = a->value.get<double>();
    PlotMark m{"", v, v, v, phrase(element, key) + ": " + format_value(a->value, a->unit)};
    if (a->interval) {
      m.lo = a->interval->lo;
      m.hi = a->interval->hi;
    }
    if (a->unit == "B" && plot.x_bytes && v >= x_min / 2 && v <= x_max * 2)
      m.axis = "x";
    else if (a->unit == "cycles")
      m.axis = "y";
    else
      continue;
    plot.marks.push_back(std::move(m));
  }
}

Plot build_plot(const model::Report& report, const std::vector<const model::Sweep*>& batches,
                std::size_t max_series, std::size_t max_points) {
  Plot plot;
  plot.probe = batches.front()->probe;
  plot.space = batches.front()->space;
  plot.batches = batches.size();
  const XAxis axis = choose_axis(batches);
  plot.x_bytes = axis == XAxis::Bytes || axis == XAxis::Stride;
  plot.x_label = axis == XAxis::Bytes    ? "array size"
                 : axis == XAxis::Stride ? "stride"
                 : axis == XAxis::Sm     ? "SM"
                                         : "request";
  std::size_t request = 0;
  if (batches.size() <= max_series) {
    for (std::size_t b = 0; b < batches.size(); ++b)
      add_series(plot, axis, {batches[b]}, "batch " + std::to_string(b + 1), request, max_points);
  } else {
    add_series(plot, axis, batches, "all " + std::to_string(batches.size()) + " batches", request,
               max_points);
  }
  double x_min = 0, x_max = 0;
  bool first = true;
  for (const auto& s : plot.series)
    for (const auto& [x, y] : s.xy) {
      x_min = first ? x : std::min(x_min, x);
      x_max = first ? x : std::max(x_max, x);
      first = false;
    }
  plot.x_log = plot.x_bytes && x_min > 0 && x_max / x_min >= 16;
  add_marks(plot, report, *batches.front(), x_min, x_max);
  return plot;
}

}  // namespace

std::vector<Plot> build_plots(const model::Report& report, std::size_t max_series,
                              std::size_t max_points) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const model::Sweep*>> by_probe;
  for (const auto& s : report.sweeps) {
    auto& batches = by_probe[s.probe];
    if (batches.empty()) order.push_back(s.probe);
    batches.push_back(&s);
  }
  std::vector<Plot> plots;
  for (const auto& probe : order)
    plots.push_back(build_plot(report, by_probe[probe], max_series, max_points));
  return plots;
}

std::vector<BandwidthBar> bandwidth_bars(const model::Report& report) {
  std::vector<BandwidthBar> bars;
  for (const auto& e : report.memory)
    for (const auto& [key, a] : e.attributes) {
      if (a.unit != "GB/s" || !a.available() || !a.value.is_number()) continue;
      bars.push_back(
          {phrase(e.key, key), a.value.get<double>(), a.source == model::Source::Derived});
    }
  return bars;
}

}  // namespace gputopo::report
