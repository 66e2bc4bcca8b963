#pragma once

#include <string>
#include <vector>

#include "device/sim/config.hpp"
#include "discovery/result.hpp"

namespace gputopo::discovery::testing {

// How far a value may lie from the truth before it is wrong (docs/testing.md, "Calibration").
enum class TruthKind { Size, Latency, Bandwidth, Discrete };
double tolerance(TruthKind kind);
std::string_view to_string(TruthKind kind);

// The simulator's own answer for one reported value.
struct ValueTruth {
  std::string element;
  std::string key;
  double value = 0;
  TruthKind kind = TruthKind::Discrete;
  bool at_least = false;  // the value can only show "at least" this much (a capped size)
};

// Every value of the L1 family, shared memory, L2 and device memory whose truth the configuration
// gives. Some truths depend on what the run chose (the SM a latency ran on, a stream's buffer):
// those are read from the result's evidence.
std::vector<ValueTruth> value_truth(const device::sim::SimConfig& cfg, const Result& r);

}  // namespace gputopo::discovery::testing
