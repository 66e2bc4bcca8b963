#include "analysis/contention_classes.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>

namespace gputopo::analysis {
namespace {

constexpr int kReferenceRepeats = 3;
// Lines between two timings of the reference: a clock that drifts moves t1 with it.
constexpr int kReferenceEvery = 128;

class Classer {
 public:
  Classer(const std::function<double(const std::vector<int>&)>& seconds, ContentionClasses& out)
      : seconds_(seconds), out_(out) {}

  // After one untimed set that brings line 0 into the cache.
  void reference() {
    time({0});
    std::vector<double> t;
    for (int r = 0; r < kReferenceRepeats; ++r) t.push_back(time({0}));
    std::sort(t.begin(), t.end());
    out_.reference_seconds = t[t.size() / 2];
    out_.reference_spreads.push_back(t.front() > 0 ? t.back() / t.front() - 1 : 0);
    std::vector<double> spreads = out_.reference_spreads;
    std::sort(spreads.begin(), spreads.end());
    out_.reference_spread = spreads[spreads.size() / 2];
  }

  // Whether `line` shares a slice with one of reps [first, last).
  bool shares(int line, std::size_t first, std::size_t last) {
    std::vector<int> set{line};
    for (std::size_t k = first; k < last; ++k) set.push_back(out_.representative[k]);
    const double q = time(set) / out_.reference_seconds;
    const bool shared = q > std::sqrt(2.0);
    if (shared)
      out_.worst_shared = std::min(out_.worst_shared, q);
    else
      out_.worst_distinct = std::max(out_.worst_distinct, q);
    return shared;
  }

  // The class of reps [first, last) whose slice `line` shares, known to be one of them.
  int bisect(int line, std::size_t first, std::size_t last) {
    while (last - first > 1) {
      const std::size_t mid = first + (last - first) / 2;
      if (shares(line, first, mid))
        last = mid;
      else
        first = mid;
    }
    return static_cast<int>(first);
  }

 private:
  double time(const std::vector<int>& set) {
    ++out_.tests;
    return seconds_(set);
  }

  const std::function<double(const std::vector<int>&)>& seconds_;
  ContentionClasses& out_;
};

}  // namespace

ContentionClasses contention_classes(int lines,
                                     const std::function<double(const std::vector<int>&)>& seconds,
                                     int group) {
  ContentionClasses c;
  if (lines < 1 || group < 1) return c;
  Classer(seconds, c).reference();
  extend_classes(c, lines, seconds, group);
  return c;
}

void extend_classes(ContentionClasses& c, int lines,
                    const std::function<double(const std::vector<int>&)>& seconds, int group) {
  if (group < 1 || c.reference_seconds <= 0) return;
  Classer classer(seconds, c);
  const auto step = static_cast<std::size_t>(group);
  for (auto line = static_cast<int>(c.label.size()); line < lines; ++line) {
    if (line > 0 && line % kReferenceEvery == 0) classer.reference();
    int found = -1;
    for (std::size_t first = 0; first < c.representative.size() && found < 0; first += step) {
      const std::size_t last = std::min(first + step, c.representative.size());
      if (classer.shares(line, first, last)) found = classer.bisect(line, first, last);
    }
    if (found < 0) {
      found = static_cast<int>(c.representative.size());
      c.representative.push_back(line);
      c.sizes.push_back(0);
    }
    c.label.push_back(found);
    ++c.sizes[static_cast<std::size_t>(found)];
  }
}

UnseenClasses unseen_classes(const std::vector<int>& label) {
  UnseenClasses u;
  const std::size_t n = label.size();
  std::size_t still = 0;  // index bits that move no line
  for (std::size_t bit = 1; bit < n; bit <<= 1) {
    bool moves = false;
    for (std::size_t i = 0; i < n && !moves; ++i)
      moves = (i ^ bit) < n && label[i] != label[i ^ bit];
    if (moves)
      u.moving_bits.push_back(std::countr_zero(bit));
    else
      still |= bit;
  }
  std::map<int, int> units_of_class;
  for (std::size_t i = 0; i < n; ++i)
    if ((i & still) == 0) ++u.units, ++units_of_class[label[i]];
  for (const auto& [k, units] : units_of_class) {
    u.once += units == 1;
    u.twice += units == 2;
  }
  u.unseen = u.once * (u.once - 1) / (2.0 * (u.twice + 1));
  const int seen = static_cast<int>(units_of_class.size());
  double term = std::exp(-u.unseen), cdf = term;
  int extra = 0;
  while (cdf < 0.95) {
    ++extra;
    term *= u.unseen / extra;
    cdf += term;
  }
  u.upper = seen + extra;
  return u;
}

}  // namespace gputopo::analysis
