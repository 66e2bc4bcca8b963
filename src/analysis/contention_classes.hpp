#pragma once

#include <functional>
#include <limits>
#include <vector>

namespace gputopo::analysis {

// Lines classed by the L2 slice that serves them, from contention: where each slice serves
// reductions at a bounded rate, equal work to each of a set of lines takes one line's time when
// they lie on distinct slices and twice that when two share one. Method (docs/methods.md,
// "Contention classes"): one line's time t1 is the reference (median of three, after
// one that warms the line, timed again every 128 lines); each line is timed
// together with the representatives of the classes found so far, `group` at a time; a set that
// takes over sqrt(2) t1 holds the line's slice, and halving it finds the representative. A line
// that contends with none founds a class.
struct ContentionClasses {
  std::vector<int> label;                 // class of each line, numbered in order of first line
  std::vector<int> representative;        // each class's first line
  std::vector<int> sizes;                 // lines of each class
  double reference_seconds = 0;           // t1, the latest
  std::vector<double> reference_spreads;  // each timing's repeats: largest over least, less 1
  double reference_spread = 0;            // their median
  int tests = 0;                          // timed sets, the reference's included
  // Each verdict's time over t1: the largest read as distinct slices (ideally 1), the least read
  // as a shared one (ideally 2).
  double worst_distinct = 0;
  double worst_shared = std::numeric_limits<double>::infinity();
};

// `seconds(lines)`: the time for the same work on each listed line (indices into 0 .. lines-1).
ContentionClasses contention_classes(int lines,
                                     const std::function<double(const std::vector<int>&)>& seconds,
                                     int group = 8);

// Classes the lines after those `c` holds, up to `lines`, against its reference and classes.
void extend_classes(ContentionClasses& c, int lines,
                    const std::function<double(const std::vector<int>&)>& seconds, int group = 8);

// How many classes the lines may have missed. Index bits that move no line to another class join
// lines into units (all of one class); over the units, the bias-corrected Chao1 estimate of the
// classes not seen is f1 (f1 - 1) / (2 (f2 + 1)), f1 and f2 the classes of exactly one and two
// units. The chance that none was missed is exp(-unseen) (a Poisson count), and `upper` the
// least count that a Poisson count of mean `unseen` stays within with 95 % added to those seen.
struct UnseenClasses {
  int units = 0;
  int once = 0;   // f1
  int twice = 0;  // f2
  double unseen = 0;
  int upper = 0;
  std::vector<int> moving_bits;  // line-index bits that move some line to another class
};

UnseenClasses unseen_classes(const std::vector<int>& label);

}  // namespace gputopo::analysis
