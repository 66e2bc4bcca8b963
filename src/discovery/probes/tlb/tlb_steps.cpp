#include "discovery/probes/tlb/tlb_steps.hpp"

#include <algorithm>
#include <cmath>

namespace gputopo::discovery {
namespace {

double median_of(const std::vector<SweepPoint>& sweep, std::size_t first, std::size_t last) {
  std::vector<double> values;
  for (std::size_t k = first; k <= last; ++k) values.push_back(sweep[k].cycles);
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace

double run_error(const std::vector<SweepPoint>& sweep, std::size_t first, std::size_t last,
                 double line_sd) {
  const double n = static_cast<double>(last - first + 1);
  double lines = 0;
  double sum = 0;
  double squares = 0;
  for (std::size_t k = first; k <= last; ++k) {
    lines += line_sd * line_sd / static_cast<double>(std::max<std::uint64_t>(sweep[k].count, 1));
    sum += sweep[k].cycles;
    squares += sweep[k].cycles * sweep[k].cycles;
  }
  const double scatter = n > 1 ? std::max(0.0, (squares - sum * sum / n) / (n - 1)) : 0;
  return std::sqrt(std::max(lines / (n * n), scatter / n));
}

std::vector<Plateau> sweep_plateaus(const std::vector<SweepPoint>& sweep, double tolerance,
                                    double line_sd, std::optional<double> floor) {
  std::vector<Plateau> plateaus;
  std::size_t i = 0;
  while (i < sweep.size()) {
    std::size_t j = i;
    while (j + 1 < sweep.size() && std::abs(sweep[j + 1].cycles - sweep[i].cycles) <= tolerance)
      ++j;
    if (j > i) {
      const Plateau p{median_of(sweep, i, j), i, j};
      if (plateaus.empty()) {
        plateaus.push_back(p);
      } else {
        auto& back = plateaus.back();
        const bool on_floor =
            plateaus.size() == 1 && floor && std::abs(back.cycles - *floor) <= tolerance;
        const double rise = p.cycles - (on_floor ? *floor : back.cycles);
        const double error = on_floor
                                 ? run_error(sweep, i, j, line_sd)
                                 : std::hypot(run_error(sweep, i, j, line_sd),
                                              run_error(sweep, back.first, back.last, line_sd));
        // A run within the tolerance of the floor or below it holds L2 hits, however far above
        // the first plateau: chains of 2-3 lines that all lie in the near L2 segment read 10-15
        // cycles under the floor, and the next run, at it, is no translation miss.
        const bool hits = floor && p.cycles <= *floor + tolerance;
        if (!hits && (rise > 2 * tolerance || (rise > tolerance && rise > kStepErrors * error))) {
          plateaus.push_back(p);
        } else {
          back.last = j;
          back.cycles = median_of(sweep, back.first, j);
        }
      }
    }
    i = j + 1;
  }
  return plateaus;
}

}  // namespace gputopo::discovery
