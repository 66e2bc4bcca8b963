#include "check_sweeps.hpp"

#include <algorithm>
#include <cmath>

namespace gputopo::bench {

ChaseRequest chase(Space space, std::uint64_t bytes, std::uint32_t stride, std::uint32_t loads,
                   int sm) {
  ChaseRequest r;
  r.space = space;
  r.array_bytes = bytes;
  r.stride_bytes = stride;
  r.recorded_loads = loads;
  r.warmup_passes = 2;
  r.sm = sm;
  return r;
}

double median(std::vector<std::uint32_t> cycles) {
  if (cycles.empty()) return 0;
  const auto mid = cycles.begin() + static_cast<std::ptrdiff_t>(cycles.size() / 2);
  std::nth_element(cycles.begin(), mid, cycles.end());
  return *mid;
}

double fraction_above(const std::vector<std::uint32_t>& cycles, double threshold) {
  if (cycles.empty()) return 0;
  const auto n =
      std::count_if(cycles.begin(), cycles.end(), [&](std::uint32_t c) { return c > threshold; });
  return static_cast<double>(n) / static_cast<double>(cycles.size());
}

std::uint64_t first_size_above(const ChaseBatch& batch, const ChaseBatchResult& result,
                               double threshold, double fraction) {
  for (std::size_t i = 0; i < batch.requests.size(); ++i)
    if (fraction_above(result.results[i].cycles, threshold) > fraction)
      return batch.requests[i].array_bytes;
  return 0;
}

std::vector<double> three_levels(std::vector<std::uint32_t> cycles) {
  if (cycles.size() < 3) return {};
  std::sort(cycles.begin(), cycles.end());
  std::vector<double> x;
  for (auto c : cycles) x.push_back(std::log(std::max<double>(c, 1)));
  const auto at = [&](double q) {
    return x[static_cast<std::size_t>(q * static_cast<double>(x.size() - 1))];
  };
  // The middle center starts halfway (in log) between the outer ones, not at the median, which
  // lies inside whichever level holds most loads.
  std::vector<double> center{at(0.05), (at(0.05) + at(0.95)) / 2, at(0.95)};
  for (int iteration = 0; iteration < 100; ++iteration) {
    std::vector<double> sum(3, 0), count(3, 0);
    for (double v : x) {
      std::size_t best = 0;
      for (std::size_t k = 1; k < 3; ++k)
        if (std::abs(v - center[k]) < std::abs(v - center[best])) best = k;
      sum[best] += v;
      count[best] += 1;
    }
    for (std::size_t k = 0; k < 3; ++k)
      if (count[k] > 0) center[k] = sum[k] / count[k];
  }
  std::vector<double> levels;
  for (double c : center) levels.push_back(std::exp(c));
  std::sort(levels.begin(), levels.end());
  return levels;
}

namespace {
// Enough loads to pass the array twice, within bounds that keep traces small.
std::uint32_t loads_for(std::uint64_t bytes, std::uint32_t stride) {
  const auto elements = bytes / stride;
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(2 * elements, 512, 2048));
}
}  // namespace

ChaseBatch l1_size_sweep(int carveout) {
  ChaseBatch b;
  b.carveout_percent = carveout;
  for (std::uint64_t kib = 8; kib <= 320; kib += 2)
    b.requests.push_back(chase(Space::L1, kib * 1024, 128, loads_for(kib * 1024, 128)));
  return b;
}

ChaseBatch l2_sweep(std::uint64_t l2_bytes, int sm) {
  ChaseBatch b;
  const std::uint64_t mib = 1 << 20;
  for (std::uint64_t size = 4 * mib; size <= l2_bytes * 7 / 4; size += mib) {
    auto r = chase(Space::L2, size, 128, 2048, sm);
    r.pattern = device::Pattern::Random;
    b.requests.push_back(r);
  }
  return b;
}

ChaseBatch stride_sweep(Space space, std::uint64_t bytes) {
  ChaseBatch b;
  b.carveout_percent = 0;
  for (std::uint32_t stride = 4; stride <= 1024; stride *= 2) {
    auto r = chase(space, bytes, stride, 1024);
    r.warmup_passes = 1;
    r.record_indices = true;
    b.requests.push_back(r);
  }
  return b;
}

ChaseBatch l1_near_capacity(int carveout, int sm) {
  ChaseBatch b;
  b.carveout_percent = carveout;
  for (std::uint64_t kib = 176; kib <= 264; kib += 4)
    b.requests.push_back(chase(Space::L1, kib * 1024, 128, 2048, sm));
  return b;
}

ChaseBatch constant_sweep(std::uint64_t max_bytes) {
  ChaseBatch b;
  for (std::uint64_t bytes = 64; bytes <= max_bytes;
       bytes += bytes < 2048 ? 64 : (bytes < 4096 ? 512 : (bytes < 16384 ? 1024 : 4096)))
    b.requests.push_back(chase(Space::Constant, bytes, 64, loads_for(bytes, 64)));
  return b;
}

}  // namespace gputopo::bench
