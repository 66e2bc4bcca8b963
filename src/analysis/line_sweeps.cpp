#include "analysis/line_sweeps.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

namespace gputopo::analysis {
namespace {

std::string intervals(const std::vector<const Estimate*>& established) {
  std::ostringstream out;
  for (const Estimate* r : established) {
    if (r != established.front()) out << ", ";
    out << "(" << r->lo << ", " << r->hi << "]";
  }
  return out.str();
}

}  // namespace

Estimate combine_line_sweeps(const std::vector<Estimate>& readings, std::uint32_t fg) {
  if (readings.empty()) return Estimate{.reason = "no stride sweep"};
  std::vector<const Estimate*> established;
  for (const Estimate& r : readings)
    if (r.established) established.push_back(&r);
  if (established.empty()) return readings.back();
  const Estimate* best = established.front();
  for (const Estimate* r : established)
    if (r->confidence > best->confidence) best = r;
  Estimate e = *best;
  if (established.size() < 2) return e;
  double lo = 0, hi = std::numeric_limits<double>::infinity(), second = 0;
  for (const Estimate* r : established) {
    lo = std::max(lo, r->lo);
    hi = std::min(hi, r->hi);
    if (r != best) second = std::max(second, r->confidence);
  }
  std::vector<double> common;
  for (double p = std::max<std::uint32_t>(fg, 1); p <= hi; p *= 2)
    if (p > lo) common.push_back(p);
  if (common.empty()) {
    const double sum = best->confidence + second;
    e.confidence = sum > 0 ? (best->confidence - second) / sum : 0.0;
    e.reason = "the sweeps' intervals " + intervals(established) +
               " share no power of two: their steps contradict each other";
  } else if (common.size() == 1 && e.confidence < 0.9) {
    e.value = common.front();
    e.lo = lo;
    e.hi = hi;
    e.confidence = 0.9;
    e.reason = "the power of two in the intersection of the sweeps' intervals";
  }
  return e;
}

}  // namespace gputopo::analysis
