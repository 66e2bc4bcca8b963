#pragma once

#include <string>

#include "model/attribute.hpp"
#include "model/report.hpp"

// Values that cannot be physical are not established, with the reason (docs/schema.md,
// "Values that cannot be physical").
namespace gputopo::model {

// Why the value of `a` cannot be physical on its own (a negative quantity, or one beyond any
// hardware for its unit), or empty.
std::string implausible(const Attribute& a);

// Turns every attribute of `r` whose value cannot be physical into "not established" with the
// reason, the value kept in `evidence.implausibleValue`: those `implausible` names, and within an
// element with a derived `peakBandwidth`, a bandwidth above the peak (or a percentage of the peak
// above 100 %) by more than the peak's own uncertainty (its interval).
void refuse_implausible(Report& r);

}  // namespace gputopo::model
