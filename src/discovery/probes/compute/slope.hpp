#pragma once

#include <cstdint>
#include <vector>

#include "device/compute_request.hpp"
#include "model/attribute.hpp"

// The cost of one more step of a kernel, from spans at two chain lengths: the fixed part of a
// span (clock reads, loop set-up, the last instruction's latency, a cold instruction cache)
// cancels in the difference.
namespace gputopo::discovery {

struct Slope {
  double value = 0;  // median over repeats of (long - short) / (long_steps - short_steps)
  double lo = 0;     // the repeats' range, the one farthest from the median left out from 5 on
  double hi = 0;
  double confidence = 0;  // 1 when that range is within 1 % of the value, 0 from 10 %
  std::vector<double> per_repeat;
};

// `short_spans[i]` and `long_spans[i]` come from repeat i. Throws std::invalid_argument on empty
// or unequal inputs, or when the steps do not grow.
Slope cycles_per_step(const std::vector<double>& short_spans, const std::vector<double>& long_spans,
                      std::uint32_t short_steps, std::uint32_t long_steps);

// Item k's slope in a batch of `items` items at two chain lengths, `repeats` times, repeat-major:
// request (rep x items + k) x 2 is its short chain of repeat rep, the next its long one.
Slope item_slope(const device::ComputeBatchResult& r, std::size_t k, std::size_t items, int repeats,
                 std::uint32_t short_steps, std::uint32_t long_steps);

// The agreement rule of every compute value: 1 within 1 %, falling linearly to 0 at 10 %.
double agreement(double relative_range);

}  // namespace gputopo::discovery
