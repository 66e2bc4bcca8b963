#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "device/device.hpp"

// Detection of other work on the GPU during a run (docs/busy.md): the driver's view (other
// processes' SM use, clock slowdowns, XID and ECC events) and control measurements repeated at
// the start, at checkpoints between phases and at the end.
namespace gputopo::discovery {

// A fixed L1 chase and a fixed L2 chase (median raw cycles), and a short L2 read stream (median
// GB/s, at the start and the end only: it costs far more than the chases).
inline constexpr std::size_t kControls = 3;
using ControlValues = std::array<std::optional<double>, kControls>;

struct ControlSpec {
  const char* name;
  double floor;       // the least relative drift counted, whatever the noise
  double resolution;  // the least step of the value (a chase's cycles are whole numbers)
};
inline constexpr std::array<ControlSpec, kControls> kControlSpecs{
    {{"L1 chase", 0.05, 1}, {"L2 chase", 0.05, 1}, {"L2 stream", 0.15, 0}}};
// A drift counts when it exceeds this many times the control's own spread at the start.
inline constexpr double kNoiseMultiple = 4;
// Another process using more than this share of the SMs (percent) makes the GPU busy.
inline constexpr double kBusySmPercent = 5;
// A checkpoint follows the phase after which this many device calls have run since the last.
inline constexpr std::size_t kCheckpointCalls = 24;
// Re-runs of one span of phases, and of all spans of a run together.
inline constexpr int kSpanReruns = 2;
inline constexpr int kRunReruns = 6;
// Repeats of the controls at the start, from which their noise is taken.
inline constexpr int kBaselineRepeats = 3;

// Why the GPU is not free by the driver's account: another process on the SMs, a clock slowdown,
// an XID or ECC event. nullopt when nothing is wrong or nothing is known.
std::optional<std::string> busy_reason(const device::DeviceState& now,
                                       const std::optional<std::uint64_t>& ecc_at_start);

// The controls that drifted from `reference` beyond max(kNoiseMultiple x spread, floor, one step
// of the resolution), each
// as "L2 chase 412 vs 281 (+47 %)"; `spread` is relative to the reference.
std::vector<std::string> drifts(const ControlValues& reference, const ControlValues& spread,
                                const ControlValues& now);

class Guard {
 public:
  explicit Guard(device::Device& device);

  // The driver's state and the controls, kBaselineRepeats times. Returns a warning when the GPU
  // is busy at the start ("" when not).
  std::string start();
  // After a span of phases: why it was disturbed, "" when it was not. Without `with_controls`
  // only the driver is asked; `with_stream` adds the stream control (the end of the run).
  std::string checkpoint(bool with_stream, bool with_controls = true);
  // Why the GPU is busy by the driver's account now (busy_reason), nullopt when it is not.
  std::optional<std::string> driver_busy();
  // Whether the driver found the GPU busy at start().
  bool busy_at_start() const { return busy_at_start_; }
  // A note for the report when the controls could not run (e.g. a replayed recording without
  // them), "" otherwise.
  const std::string& note() const { return note_; }
  // What the detection cost: wall seconds in the driver queries and controls, and checkpoints.
  double seconds() const { return seconds_; }
  int checkpoints() const { return checkpoints_; }

 private:
  ControlValues measure(bool with_stream);
  std::optional<double> control(std::size_t which);

  device::Device& device_;
  ControlValues reference_{};
  ControlValues spread_{};
  std::optional<std::uint64_t> ecc_at_start_;
  bool controls_ok_ = true;
  bool busy_at_start_ = false;
  std::string note_;
  double seconds_ = 0;
  int checkpoints_ = 0;
};

}  // namespace gputopo::discovery
