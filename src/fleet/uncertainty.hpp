#pragma once

#include <span>

#include "fleet/fleet_values.hpp"

// The uncertainty a fleet comparison decides on (docs/fleet.md, "What counts as a difference").
namespace gputopo::fleet {

// A value is established where it has one and claims no confidence under 0.5.
bool established(const Value* v);

// The standard deviation of a value's measurement on the side that faces `toward`: its 95 %
// interval's half-width on that side / 1.96 (infinite toward an open bound), combined with the
// stored spread of a reference's runs. 0 where it has neither.
double own_sd(const Value& v, double toward);

// A robust standard deviation of values from several GPUs: 1.4826 x their median absolute
// deviation, times the small-sample factor of Croux and Rousseeuw (1992) that makes it unbiased
// for normal data. 0 for fewer than two values. Sorts `x`.
double fleet_sd(std::span<double> x);

// The standard deviation of the median of values whose own are `sds`: 1.2533 x their median /
// sqrt(n). Sorts `sds`.
double median_sd(std::span<double> sds);

}  // namespace gputopo::fleet
