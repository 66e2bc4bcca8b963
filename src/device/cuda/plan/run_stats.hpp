#pragma once

#include <cstdint>
#include <optional>
#include <vector>

// Small numeric helpers of the CUDA backend's bookkeeping. Plain C++.
namespace gputopo::device::cuda {

// Clock readings further apart than this fraction count as a clock change during a batch.
inline constexpr double kClockChangeFraction = 0.02;

// True when both readings exist and differ by more than kClockChangeFraction.
bool clock_changed(std::optional<double> before_mhz, std::optional<double> after_mhz);

// Median of raw cycle counts (0 for none): the timing overhead is the median of a chase with no
// load, which ignores the odd interrupted sample.
double median_cycles(std::vector<std::uint32_t> cycles);

// A job's own clock rate in cycles per ns, from its %clock64 and %globaltimer spans; 0 when the
// span is empty.
double cycles_per_ns(std::uint64_t clock_start, std::uint64_t clock_end, std::uint64_t ns_start,
                     std::uint64_t ns_end);

}  // namespace gputopo::device::cuda
