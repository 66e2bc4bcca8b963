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
  // A measured number differs only when it lies this far (relative) from the consensus and the
  // consensus lies outside its interval.
  double tolerance = 0.02;
};

// One GPU's value where it differs from the consensus.
struct Deviation {
  std::string member;
  model::Json value;               // null: not established, with the reason
  std::optional<double> relative;  // (value - consensus) / |consensus|, for numbers
  std::optional<std::pair<double, double>> interval;
  std::string reason;
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
  std::size_t compared = 0;  // attributes that two GPUs or more report
  std::vector<Difference> differences;
  std::vector<Outlier> outliers;  // GPUs with a difference, the most first
};

// Compares every attribute across `members`. With two GPUs the first is the reference; with more,
// the consensus of a measured number is the median of the values, of anything else the most
// common value, and a GPU differs from it. An attribute most GPUs established differs on a GPU
// that did not establish it.
Comparison compare(const std::vector<Member>& members, const CompareOptions& options);

}  // namespace gputopo::fleet
