#include "discovery/guard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "analysis/summary.hpp"
#include "device/startup_trace.hpp"
#include "model/seconds_since.hpp"

namespace gputopo::discovery {
namespace {

constexpr std::uint64_t kL1ControlBytes = 4096;
constexpr std::uint64_t kL2ControlMaxBytes = std::uint64_t{4} << 20;
constexpr std::uint64_t kStreamControlMaxBytes = std::uint64_t{8} << 20;
constexpr std::uint32_t kControlLoads = 512;
constexpr std::uint32_t kStreamRepeats = 3;
constexpr std::size_t kStream = 2;

double median_cycles(const std::vector<std::uint32_t>& cycles) {
  std::vector<double> v(cycles.begin(), cycles.end());
  return analysis::median(v);
}

// Adds the wall time of its scope to `total`.
class Timed {
 public:
  explicit Timed(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~Timed() { total_ += model::seconds_since(start_); }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

std::optional<std::string> busy_reason(const device::DeviceState& s,
                                       const std::optional<std::uint64_t>& ecc_at_start) {
  std::vector<std::string> why;
  if (s.others_sm_percent && *s.others_sm_percent > kBusySmPercent)
    why.push_back(fmt::format("another process used {:.0f} % of the SMs", *s.others_sm_percent));
  for (const auto& slowdown : s.slowdowns) why.push_back("clock slowdown: " + slowdown);
  for (const auto xid : s.xids) why.push_back(fmt::format("XID {}", xid));
  if (s.ecc_uncorrected && ecc_at_start && *s.ecc_uncorrected > *ecc_at_start)
    why.push_back(fmt::format("{} uncorrected ECC error(s)", *s.ecc_uncorrected - *ecc_at_start));
  if (why.empty()) return std::nullopt;
  std::string text;
  for (const auto& w : why) text += (text.empty() ? "" : "; ") + w;
  return text;
}

std::vector<std::string> drifts(const ControlValues& reference, const ControlValues& spread,
                                const ControlValues& now) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < kControls; ++i) {
    if (!reference[i] || !now[i] || *reference[i] <= 0) continue;
    const double change = *now[i] / *reference[i] - 1;
    // A latency of a cycle or two moves by a whole step of the resolution without any cause.
    const double limit = std::max({kNoiseMultiple * spread[i].value_or(0), kControlSpecs[i].floor,
                                   kControlSpecs[i].resolution / *reference[i]});
    if (std::abs(change) > limit)
      out.push_back(fmt::format("{} {:.4g} vs {:.4g} at the start ({:+.0f} %)",
                                kControlSpecs[i].name, *now[i], *reference[i], 100 * change));
  }
  return out;
}

Guard::Guard(device::Device& device) : device_(device) {}

std::optional<double> Guard::control(std::size_t which) {
  const auto& info = device_.info();
  const auto t0 = std::chrono::steady_clock::now();
  if (which == kStream) {
    device::StreamRequest r;
    r.bytes = std::clamp<std::uint64_t>(info.l2_bytes() / 2, 4096, kStreamControlMaxBytes);
    r.repeats = kStreamRepeats;
    const auto result = device_.stream(r);
    device::trace_call("guard", kControlSpecs[which].name, std::chrono::steady_clock::now() - t0,
                       result.conditions.elapsed_ns);
    return analysis::median(result.gbps);
  }
  device::ChaseRequest r;
  r.sm = 0;
  r.warmup_passes = 1;
  r.recorded_loads = kControlLoads;
  if (which == 0) {
    r.space = device::Space::L1;
    r.array_bytes = kL1ControlBytes;
  } else {
    r.space = device::Space::L2;
    r.array_bytes = std::clamp<std::uint64_t>(info.l2_bytes() / 4, 4096, kL2ControlMaxBytes);
    r.pattern = device::Pattern::Random;
  }
  device::ChaseBatch batch;
  batch.requests.push_back(r);
  const auto result = device_.chase(batch);
  device::trace_call("guard", kControlSpecs[which].name, std::chrono::steady_clock::now() - t0,
                     result.conditions.elapsed_ns);
  return median_cycles(result.results.at(0).cycles);
}

ControlValues Guard::measure(bool with_stream) {
  ControlValues v{};
  if (!controls_ok_) return v;
  try {
    for (std::size_t i = 0; i < kControls; ++i)
      if (i != kStream || with_stream) v[i] = control(i);
  } catch (const device::Error& e) {
    using K = device::Error::Kind;
    if (e.kind() != K::BadRequest && e.kind() != K::Measurement && e.kind() != K::OutOfMemory)
      throw;
    controls_ok_ = false;
    note_ = std::string("the control measurements could not run (") + e.what() +
            "); other work on the GPU is judged by the driver's account and the SM clock only";
    return {};
  }
  return v;
}

std::string Guard::start() {
  const Timed timed(seconds_);
  const auto state = device_.state();
  ecc_at_start_ = state.ecc_uncorrected;
  std::vector<ControlValues> runs;
  // The stream once: its launch-shape tuning costs tens of milliseconds; its floor sets its limit.
  for (int i = 0; i < kBaselineRepeats && controls_ok_; ++i) runs.push_back(measure(i == 0));
  for (std::size_t c = 0; c < kControls && controls_ok_; ++c) {
    std::vector<double> v;
    for (const auto& run : runs)
      if (run[c]) v.push_back(*run[c]);
    if (v.empty()) continue;
    const double mid = analysis::median(v);
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    reference_[c] = mid;
    spread_[c] = mid > 0 ? (*hi - *lo) / mid : 0;
  }
  std::string warning;
  if (const auto why = busy_reason(state, std::nullopt)) {
    busy_at_start_ = true;
    warning = "the GPU is busy at the start (" + *why + ")";
  } else if (state.other_processes && *state.other_processes > 0)
    warning = fmt::format("{} other process(es) hold the GPU at the start", *state.other_processes);
  return warning;
}

std::string Guard::checkpoint(bool with_stream, bool with_controls) {
  const Timed timed(seconds_);
  ++checkpoints_;
  std::vector<std::string> why;
  if (const auto busy = busy_reason(device_.state(), ecc_at_start_)) why.push_back(*busy);
  if (with_controls)
    for (auto& d : drifts(reference_, spread_, measure(with_stream))) why.push_back(std::move(d));
  std::string text;
  for (const auto& w : why) text += (text.empty() ? "" : "; ") + w;
  return text;
}

std::optional<std::string> Guard::driver_busy() {
  const Timed timed(seconds_);
  return busy_reason(device_.state(), ecc_at_start_);
}

}  // namespace gputopo::discovery
