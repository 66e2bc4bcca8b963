#pragma once

// Internal to the analysis library: the fine histogram of log-latency that level clustering and
// sweep reduction share, so that every sample's logarithm is taken once.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/cluster.hpp"

namespace gputopo::analysis::detail {

struct LogBin {
  double count = 0;
  double sum = 0;    // of (log v - origin)
  double sumsq = 0;  // of (log v - origin)^2
  double min = 0;    // latency units
  double max = 0;
};

struct LogHistogram {
  static constexpr std::uint16_t kUnusable = 0xFFFF;  // sample_bin of NaN, inf, <= 0

  double origin = 0;  // log of the smallest usable latency
  double width = 0;   // bin width in log units
  std::size_t raw_bins = 0;
  std::vector<LogBin> bins;               // occupied bins only, ascending
  std::vector<std::uint32_t> occupied;    // raw bin index of each entry of bins
  std::vector<std::uint16_t> sample_bin;  // raw bin of every input sample, in input order
  double total = 0;
  // Spacing of the values' lattice (1 for integer cycle counts), 0 when no two nearby values
  // reveal one. It bounds how finely levels can be told apart.
  double resolution = 0;
};

LogHistogram build_log_histogram(std::span<const std::span<const double>> samples,
                                 std::size_t bins);

// Clusters the histogram; level_of_raw_bin maps every raw bin to its level.
Clustering cluster_log_histogram(const LogHistogram& h, const ClusterOptions& options,
                                 std::vector<std::uint8_t>& level_of_raw_bin);

}  // namespace gputopo::analysis::detail
