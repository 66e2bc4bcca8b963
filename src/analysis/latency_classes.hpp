#pragma once

#include <vector>

namespace gputopo::analysis {

// Lines classed by their latency profile over a set of SMs: lines of one L2 slice (or of slices
// that every SM reaches at one latency) share a profile. Method (docs/methods.md, "Latency
// classes"): each SM's noise is read from the differences between repeats of one cell (their
// median absolute value, so a rare slow load does not count), so a cell's variance is known
// without a chosen scale. Ward's tree is built on the first half of each cell's repeats, in the
// noise-whitened space; from the root down, a node stays split while the other half (noise the
// tree never saw) puts its two sides' centroids apart by a chi-square over the SMs above its
// 1 - alpha / lines quantile. A cell's value is the lower median of its repeats.
struct LatencyClassOptions {
  double alpha = 0.01;         // family-wise false-split rate over the lines
  double min_sample_sd = 0.5;  // cycles: the floor of an SM's noise (a clock's resolution)
};

struct LatencyClasses {
  std::vector<int> label;  // class of each line, numbered in order of first line
  int count = 0;
  std::vector<int> sizes;                 // lines of each class
  std::vector<double> sample_sd;          // each SM's noise of one sample, cycles
  double critical = 0;                    // the chi-square merge limit
  int dof = 0;                            // degrees of freedom: the SMs
  double weakest_split = 0;               // the smallest merge cost left undone (0: one class)
  double strongest_merge = 0;             // the largest merge cost done
  double confidence = 0;                  // that neither a split nor a merge was noise
  std::vector<std::vector<double>> mean;  // [sm][class]: mean cell over the class's lines
  std::vector<std::vector<double>> half;  // [sm][class]: its 95 % half-width
};

// samples[line][sm]: the repeats of one cell (at least two each; every line the same SMs and
// repeats). Fewer than 2 lines or SMs give one class of confidence 0.
LatencyClasses latency_classes(const std::vector<std::vector<std::vector<double>>>& samples,
                               const LatencyClassOptions& options = {});

}  // namespace gputopo::analysis
