#include "model/run_noise.hpp"

#include <array>
#include <cmath>
#include <string>
#include <utility>

namespace gputopo::model {
namespace {

// The 90th percentile over each kind's attributes (those without a figure of their own below) of
// the run-to-run relative standard deviation on one GPU (scripts/fit-run-noise.py over
// docs/results/fleet-runs; its test keeps these at or above the fit).
constexpr std::array<std::pair<std::string_view, double>, 5> kKinds{{
    {"bandwidth", 0.014},
    {"latency", 0.0040},
    {"time", 0.029},
    {"rate", 0.0015},
    {"size", 0.0},
}};

// Attributes that move between runs further than their kind's figure covers, each with its own
// figure (at or above its fit; the same script): where they are in a report, as the fleet
// comparison names them.
constexpr std::array<std::pair<std::string_view, double>, 22> kAttributes{{
    {"compute.ffmaThroughput", 0.0016},
    {"compute.fmulThroughput", 0.0016},
    {"memory.constantL1.missPenalty", 0.0052},
    {"memory.constantL1.missPenaltyNs", 0.0050},
    {"memory.constantL15.latency", 0.0093},
    {"memory.constantL15.latencyNs", 0.0094},
    {"memory.dram.copyBandwidth", 0.027},
    {"memory.dram.latency", 0.033},
    {"memory.dram.latencyNs", 0.033},
    {"memory.l1.size", 0.021},
    {"memory.l2.capacity", 0.0056},
    {"memory.l2.measuredSegmentSize", 0.052},
    {"memory.l2.missPenalty", 0.061},
    {"memory.l2.missPenaltyNs", 0.061},
    {"memory.l2.nearLatencyBySm", 0.054},
    {"memory.l2.readBandwidth", 0.043},
    {"memory.l2.segmentSize", 0.074},
    {"memory.l2.sharedReadBandwidth", 0.043},
    {"memory.readOnly.size", 0.022},
    {"memory.texture.size", 0.019},
    {"memory.tlb1.missPenalty", 0.106},
    {"memory.tlb1.reach", 0.080},
}};

std::string_view kind_of(std::string_view unit) {
  if (unit == "GB/s" || unit == "B/clk" || unit == "%") return "bandwidth";
  if (unit == "cycles") return "latency";
  if (unit == "B") return "size";
  // Cycles over the clock of the moment: the clock's reading moves them further.
  if (unit == "ns") return "time";
  if (unit == "instr/clk/SM" || unit == "thread instructions/clk/SM" || unit == "FLOP/clk/SM" ||
      unit == "TFLOP/s" || unit == "OPS/clk/SM" || unit == "TOPS" || unit == "registers/clk")
    return "rate";
  return {};
}

}  // namespace

std::optional<double> run_to_run_sd(std::string_view unit, std::string_view path) {
  for (const auto& [name, sd] : kAttributes)
    if (name == path) return sd;
  const auto kind = kind_of(unit);
  for (const auto& [k, sd] : kKinds)
    if (k == kind) return sd;
  return std::nullopt;
}

void add_run_to_run_noise(Attribute& a, std::string_view path) {
  if (!a.needs_interval() || !a.interval) return;
  const auto sd = run_to_run_sd(a.unit, path);
  if (!sd) return;
  const double v = a.value.get<double>();
  const double h = 1.96 * std::sqrt(2.0) * *sd * std::abs(v);
  a.interval->lo = v - std::hypot(v - a.interval->lo, h);
  a.interval->hi = v + std::hypot(a.interval->hi - v, h);
}

}  // namespace gputopo::model
