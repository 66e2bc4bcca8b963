#include "discovery/probes/tlb/tlb_steps.hpp"

#include <algorithm>
#include <cmath>

namespace gputopo::discovery {

std::vector<Plateau> sweep_plateaus(const std::vector<SweepPoint>& sweep, double tolerance) {
  std::vector<Plateau> plateaus;
  std::size_t i = 0;
  while (i < sweep.size()) {
    std::size_t j = i;
    while (j + 1 < sweep.size() && std::abs(sweep[j + 1].cycles - sweep[i].cycles) <= tolerance)
      ++j;
    if (j > i) {
      std::vector<double> values;
      for (std::size_t k = i; k <= j; ++k) values.push_back(sweep[k].cycles);
      std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
      const Plateau p{values[values.size() / 2], i, j};
      if (plateaus.empty() || p.cycles > plateaus.back().cycles + 2 * tolerance)
        plateaus.push_back(p);
      else
        plateaus.back().last = j;
    }
    i = j + 1;
  }
  return plateaus;
}

}  // namespace gputopo::discovery
