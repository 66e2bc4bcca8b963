#pragma once

#include <cstddef>
#include <vector>

// Checks where the blocks of one launch ran, from the %smid each job recorded. Plain C++.
namespace gputopo::device::cuda {

struct JobOutcome {
  bool ran = false;        // the job's block finished it
  bool timed_out = false;  // the job stopped at its device-side deadline
  int smid = -1;           // where it ran
  int wanted_sm = -1;      // its placement, or -1 for any
};

struct LaunchVerdict {
  std::vector<std::size_t> accepted;   // job indices whose results stand
  std::vector<std::size_t> rerun;      // jobs to run again: not run, wrong SM, or SM shared
  std::vector<std::size_t> timed_out;  // jobs that hit their deadline (a measurement failure)
};

// A job that shared its SM with an earlier job of the launch, ran on another SM than it asked
// for, or did not run, is re-run; the first job on each SM stands.
LaunchVerdict judge_launch(const std::vector<JobOutcome>& jobs);

}  // namespace gputopo::device::cuda
