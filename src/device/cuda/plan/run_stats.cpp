#include "device/cuda/plan/run_stats.hpp"

#include <algorithm>
#include <cmath>

namespace gputopo::device::cuda {

bool clock_changed(std::optional<double> before_mhz, std::optional<double> after_mhz) {
  if (!before_mhz || !after_mhz || *before_mhz <= 0) return false;
  return std::abs(*after_mhz - *before_mhz) > kClockChangeFraction * *before_mhz;
}

double median_cycles(std::vector<std::uint32_t> cycles) {
  if (cycles.empty()) return 0;
  const auto mid = cycles.begin() + static_cast<std::ptrdiff_t>(cycles.size() / 2);
  std::nth_element(cycles.begin(), mid, cycles.end());
  if (cycles.size() % 2 == 1) return *mid;
  const auto lower = *std::max_element(cycles.begin(), mid);
  return (static_cast<double>(lower) + static_cast<double>(*mid)) / 2;
}

double cycles_per_ns(std::uint64_t clock_start, std::uint64_t clock_end, std::uint64_t ns_start,
                     std::uint64_t ns_end) {
  if (ns_end <= ns_start || clock_end <= clock_start) return 0;
  return static_cast<double>(clock_end - clock_start) / static_cast<double>(ns_end - ns_start);
}

}  // namespace gputopo::device::cuda
