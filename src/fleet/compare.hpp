#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleet/fleet_values.hpp"

// Which GPUs of a fleet are not like the others (docs/fleet.md).
namespace gputopo::fleet {

struct CompareOptions {
  // An extra floor: a measured number differs only when it also lies this far (relative) from
  // the consensus.
  double tolerance = 0.01;
  // How many combined standard deviations a measured number must lie from the consensus.
  double threshold = 4.5;
  // A reference of the GPUs' model (scripts/make-reference.py): how far its runs on several
  // healthy GPUs spread (`spread.sigma`) is noise a fleet's GPUs may differ by. Null: none known.
  const Member* healthy = nullptr;
};

// One GPU's value where it differs from the consensus.
struct Deviation {
  std::string member;
  model::Json value;
  std::optional<double> relative;  // (value - consensus) / |consensus|, for numbers
  std::optional<double> scale;     // the combined standard deviation, for measured numbers
  std::optional<std::pair<double, double>> interval;
};

struct Difference {
  std::string path;
  std::string unit;
  model::Json consensus;
  std::string basis;  // how the consensus was chosen: "reference", "median" or "most common"
  std::vector<Deviation> members;
};

struct Outlier {
  std::string member;
  std::size_t differences = 0;
};

struct Comparison {
  std::vector<std::string> members;
  double tolerance = 0;
  double threshold = 0;
  std::size_t compared = 0;  // attributes that two GPUs or more report
  std::string healthy;       // the reference whose healthy spread counted as noise, or empty
  std::vector<Difference> differences;
  std::vector<Outlier> outliers;  // GPUs with a difference, the most first
};

// Compares every attribute across `members`. With two GPUs the first is the reference; with more,
// the consensus of a measured number is the median of the values, of anything else the most
// common value. A measured number differs when it lies farther from the consensus than
// `threshold` times the combined standard deviation of its interval, the consensus's and the
// spread between the GPUs (at least the healthy spread of `healthy`), and
// farther than `tolerance`; anything else when it is another value.
// Only values established on both sides differ (a value, at confidence 0.5 or more where one is
// given). O(n log n) in the number of values.
Comparison compare(const std::vector<Member>& members, const CompareOptions& options);

}  // namespace gputopo::fleet
